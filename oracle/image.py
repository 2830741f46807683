"""Which image grades, and how a machine without a registry gets one.

Resolution never pulls: a grade uses only what is already on the engine, so
a grade cannot silently change what it runs in or hang on a registry.
`python -m oracle image` is the one place allowed to fetch or build; what
only building needs (subprocess, shutil, tempfile) is imported there, not
by every grade.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from oracle.engine import Engine, EngineError, Image, NotFound, UnsupportedHost, connect

IMAGE_ENV = "EVERYDAY_ORACLE_IMAGE"
API_VERSION = "1.41"
"""The engine API version spoken (Docker 20.10's): every call the oracle makes exists in it."""
API_VERSION_ENV = "DOCKER_API_VERSION"  # the docker command line's own override, honoured here too
BAD_REQUEST = 400  # what an engine answers a version it does not speak
ENGINE_TIMEOUT_S = 60
LOCAL_TAG = "everyday-evals-oracle:local"
PINNED_IMAGE = "python@sha256:9d2e5553305c7c7b0097999bb17187c69b921ccd6bc9d40e4bb5ebe652c00285"
BUILD_HINT = "run `make oracle-image` (or `python -m oracle image`)"
MIRROR_ENV = "EVERYDAY_ORACLE_DEBIAN_MIRROR"
_PRUNE = (
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "var/lib/apt/lists",
    "var/cache/apt",
    "var/cache/debconf",
)


class CannotGrade(Exception):
    """The oracle could not grade at all (no engine, no image): not the delivery's fault."""


def engine() -> Engine:
    """A client whose engine answers, or CannotGrade naming the fix.

    The client speaks API_VERSION (or $DOCKER_API_VERSION), which engines
    from Docker 20.10 on accept until they drop it, and proves the engine
    answers with one ping. Why not ask the engine first: a `/version`
    request, which the engine answers by running `runc --version` and
    `docker-init --version`, costs 7 to 50 ms of every grade, by load,
    and CPU the container start needs. Only an engine that refuses the
    pinned version (older than 20.10, or one that dropped it) is asked for
    its own ("auto" asks at once). DOCKER_HOST (and DOCKER_TLS_VERIFY,
    DOCKER_CERT_PATH) choose the engine, which may be another machine:
    nothing a grade sends depends on sharing this one's disk.
    """
    pinned = os.environ.get(API_VERSION_ENV) or API_VERSION
    try:
        client = connect(os.environ, pinned, ENGINE_TIMEOUT_S)
        if pinned == "auto" or not _speaks_pinned(client):
            client.api_version = str(client.version()["ApiVersion"])  # it says which version it speaks
    except UnsupportedHost as error:
        raise CannotGrade(str(error)) from None
    except (EngineError, KeyError) as error:
        raise CannotGrade(
            f"no Docker engine answers ({str(error).splitlines()[0][:120]}): run `make engine` or start Docker"
        ) from None
    return client


def _speaks_pinned(client: Engine) -> bool:
    """One ping in the client's version: True when it answers, False when it refuses that version (400)."""
    try:
        client.ping()
    except EngineError as error:
        if error.status != BAD_REQUEST:
            raise
        return False
    return True


def candidates() -> list[str]:
    """Image references in order of preference."""
    chosen = os.environ.get(IMAGE_ENV)
    return [chosen] if chosen else [LOCAL_TAG, PINNED_IMAGE]


def resolve(client: Engine, reference: str | None = None) -> Image:
    """The image a grade runs in, present on the engine already, or CannotGrade."""
    for ref in [reference] if reference else candidates():
        try:
            return client.image(ref)
        except NotFound:
            continue
        except EngineError as error:  # e.g. an invalid reference format, or the engine went away
            raise CannotGrade(f"oracle image {ref!r} cannot be looked up: {error.explanation}"[:240]) from None
    wanted = reference or os.environ.get(IMAGE_ENV)
    if wanted:
        raise CannotGrade(
            f"oracle image {wanted!r} is not on the engine: build it or unset {IMAGE_ENV}, then {BUILD_HINT}"
        )
    raise CannotGrade(f"no oracle image on the engine: {BUILD_HINT}")


def debian_mirror(apt_dir: Path = Path("/etc/apt")) -> str | None:
    """The Debian archive to debootstrap from: the override, else the one apt already uses here, else None.

    Why not a fixed host: a machine may reach Debian only through its own
    proxy, snapshot or internal mirror, which its apt sources already name.
    None means "let debootstrap use its own default". Reads both one-line
    (`deb URI suite`) and deb822 (`URIs: URI`) sources; the first archive
    whose path ends in /debian wins (so a security archive is never chosen).
    """
    override = os.environ.get(MIRROR_ENV, "").strip()
    if override:
        return override
    for path in [apt_dir / "sources.list", *sorted((apt_dir / "sources.list.d").glob("*"))]:
        if path.suffix not in (".list", ".sources"):
            continue  # e.g. "*.list.disabled": apt ignores those, so do we
        try:
            text = path.read_text()
        except OSError:
            continue
        for match in re.finditer(r"(?:^URIs:\s*|^deb\s+(?:\[[^\]]*\]\s+)?)(\S+)", text, re.MULTILINE):
            uri = match.group(1)
            if uri.rstrip("/").endswith("/debian"):
                return uri
    return None


def _say(line: str) -> None:
    print(f"oracle image: {line}", file=sys.stderr, flush=True)


BOOTSTRAPPERS = ("mmdebstrap", "debootstrap")
"""In order of preference. mmdebstrap resolves and unpacks the same suite, variant and packages in one apt run
and writes the tar itself; debootstrap stays the fallback where only it is installed."""
MMDEBSTRAP_MERGED_USR = "/usr/share/mmdebstrap/hooks/merged-usr"
APT_LOCK = Path("/run/lock/everyday-evals-apt")
"""Every apt run of the set-up steps (engine, browser, this) takes it, so steps run at once wait for each other."""


def _ensure_bootstrapper() -> tuple[str, str]:
    """(name, path) of the bootstrapper to use, installing mmdebstrap with apt-get where neither is present."""
    import shutil

    for name in BOOTSTRAPPERS:
        found = shutil.which(name)
        if found:
            return name, found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise CannotGrade("mmdebstrap is missing: install it (`apt-get install mmdebstrap`) or pull " + PINNED_IMAGE)
    apt_install("mmdebstrap")
    return "mmdebstrap", shutil.which("mmdebstrap") or "mmdebstrap"


def apt_install(*packages: str) -> None:
    """`apt-get update` then install, quietly, holding APT_LOCK so parallel set-up steps never race for dpkg."""
    import fcntl
    import subprocess

    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with open(APT_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for command in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *packages]):
            done = subprocess.run(command, capture_output=True, text=True, env=environment)
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
                raise CannotGrade(f"`{' '.join(command)}` failed: {tail[0]}")


def _try_pull(client: Engine) -> Image | None:
    _say(f"trying to pull {PINNED_IMAGE} ...")
    try:
        repository, digest = PINNED_IMAGE.split("@")
        return client.pull(repository, digest)
    except EngineError as error:
        _say(f"pull failed ({str(error).splitlines()[0][:100]}); building locally instead")
        return None


def bootstrap_command(name: str, path: str, target: Path, mirror: str | None) -> list[str]:
    """The command that makes the root: bookworm, minbase, python3, from `mirror` (None: the tool's default).

    mmdebstrap writes `target` as a tar (numeric owners) with _PRUNE already
    gone; debootstrap writes a folder, pruned afterwards.
    """
    common = ["--variant=minbase", "--include=python3"]
    if name == "debootstrap":
        return [path, *common, "bookworm", str(target), *([mirror] if mirror else [])]
    prune = " ".join(f'"$1"/{part}' for part in _PRUNE)
    return [
        path,
        "--quiet",
        *common,
        # /usr merged by links, as debootstrap does, not by the usrmerge package (which would bring perl in).
        f"--hook-dir={MMDEBSTRAP_MERGED_USR}",
        f"--customize-hook=rm -rf {prune}",
        "bookworm",
        str(target),
        *([mirror] if mirror else []),
    ]


def _build_local(client: Engine) -> Image:
    """Minimal Debian root with python3 (mmdebstrap, else debootstrap), imported as LOCAL_TAG."""
    import shutil
    import subprocess
    import tempfile

    name, path = _ensure_bootstrapper()
    mirror = debian_mirror()
    with tempfile.TemporaryDirectory(prefix="everyday-oracle-root-") as workdir:
        target = Path(workdir) / ("root.tar" if name == "mmdebstrap" else "root")
        _say(
            f"{name} bookworm (minbase + python3) from {mirror or 'its default archive'} (set {MIRROR_ENV} to choose) ..."
        )
        done = subprocess.run(bootstrap_command(name, path, target, mirror), capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise CannotGrade(f"{name} failed: {tail[0]}")
        if name == "mmdebstrap":
            return import_tar(client, target)
        for part in _PRUNE:
            shutil.rmtree(target / part, ignore_errors=True)
        return import_root(client, target)


def import_tar(client: Engine, tar: Path, reference: str = LOCAL_TAG) -> Image:
    """Send a root's tar to the engine as `reference` (repository:tag), with LC_ALL set."""
    repository, tag = reference.rsplit(":", 1)
    with tar.open("rb") as archive:
        try:
            return client.import_image(archive, repository, tag, ["ENV LC_ALL=C.UTF-8"])
        except EngineError as error:
            raise CannotGrade(f"importing the root failed: {error.explanation}") from None


def import_root(client: Engine, root: Path, reference: str = LOCAL_TAG) -> Image:
    """Tar `root` (numeric owners), then send the tar to the engine as `reference` (repository:tag), with LC_ALL set.

    Tarred to a file first, not piped to the engine as it is made: a tar
    that fails half-way must not leave a truncated image under the tag
    grades use.
    """
    import subprocess
    import tempfile

    repository, tag = reference.rsplit(":", 1)
    with tempfile.TemporaryFile(prefix="everyday-oracle-root-") as archive:
        done = subprocess.run(
            ["tar", "-C", str(root), "--numeric-owner", "-c", "."], stdout=archive, stderr=subprocess.PIPE
        )
        if done.returncode != 0:
            tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
            raise CannotGrade(f"tar of the root failed: {tail[0]}")
        archive.seek(0)
        try:
            return client.import_image(archive, repository, tag, ["ENV LC_ALL=C.UTF-8"])
        except EngineError as error:
            raise CannotGrade(f"importing the root failed: {error.explanation}") from None


def ensure_image(client: Engine) -> Image:
    """Use an image already present, else pull the pinned one, else build one locally."""
    try:
        image = resolve(client)
        _say(f"using existing image {image.tags[0] if image.tags else ''} {image.id}")
        return image
    except CannotGrade:
        if os.environ.get(IMAGE_ENV):
            raise
    return _try_pull(client) or _build_local(client)
