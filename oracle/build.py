"""`python -m oracle image`: a verified image kept, else the pinned one pulled, else the pinned root built here.

Only `python -m oracle image` imports this (grades never build). The root is
made reproducibly (oracle.pinned): SOURCE_DATE_EPOCH from the lock, and the
files that would carry this machine into the root (its host name, its
resolver, the archive it fetched from) emptied, so two machines serving the
same package versions write the same tar. The tar's sha256 is compared with
the pinned layer before anything reaches the engine: a root that differs is
never imported, and the refusal names the packages the archive changed.
`--pin` is the maintainer's door: it writes the lock from the root just built.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from oracle.engine import Engine, EngineError, Image
from oracle.image import IMAGE_ENV, LOCAL_TAG, CannotGrade, Unverified, resolve, say
from oracle.pinned import LOCK, PINNED_IMAGE, PinnedRoot, changed_packages, packages_in_status, pinned_root

MIRROR_ENV = "EVERYDAY_ORACLE_DEBIAN_MIRROR"
MMDEBSTRAP_MERGED_USR = "/usr/share/mmdebstrap/hooks/merged-usr"
APT_LOCK = Path("/run/lock/everyday-evals-apt")
"""Every apt run of the set-up steps (engine, browser, this) takes it, so steps run at once wait for each other."""
PRUNE = (
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "var/lib/apt/lists",
    "var/cache/apt",
    "var/cache/debconf",
)
EMPTIED = {"etc/hostname": "0755", "etc/resolv.conf": "0755", "etc/apt/sources.list": "0644"}
"""Copied from the building machine by mmdebstrap; the engine mounts its own hostname and resolver, and no grade runs apt.

Each is emptied and given a fixed mode (the pinned root's), since a copy
keeps the building machine's mode too: a machine whose /etc/hostname is
0644 and one whose is 0755 would otherwise write different roots.
"""
BUILD_ENVIRONMENT = {"PYTHONDONTWRITEBYTECODE": "1"}
"""Set for every build, whatever the building machine sets: mmdebstrap passes its environment into the root.

Without it, py3compile's own import of its library (debpython) writes
timestamped bytecode before py3compile writes the hash-checked bytecode
that SOURCE_DATE_EPOCH asks for, so the root held other bytes on a machine
that does not set it.
"""
DPKG_STATUS = "./var/lib/dpkg/status"


def debian_mirror(apt_dir: Path = Path("/etc/apt")) -> str | None:
    """The Debian archive to build from: the override, else the one apt already uses here, else None.

    Why not a fixed host: a machine may reach Debian only through its own
    proxy, snapshot or internal mirror, which its apt sources already name.
    None means "let mmdebstrap use its own default". Reads both one-line
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


def apt_install(*packages: str) -> None:
    """`apt-get update` then install (no recommended packages), quietly, holding APT_LOCK so set-up steps never race."""
    import fcntl

    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with open(APT_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for command in (
            ["apt-get", "update", "-q"],
            ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages],
        ):
            done = subprocess.run(command, capture_output=True, text=True, env=environment)
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
                raise CannotGrade(f"`{' '.join(command)}` failed: {tail[0]}")


def _mmdebstrap() -> str:
    """mmdebstrap's path, installing it with apt-get where it is missing and this user may."""
    found = shutil.which("mmdebstrap")
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise CannotGrade("mmdebstrap is missing: install it (`apt-get install mmdebstrap`) or pull " + PINNED_IMAGE)
    apt_install("mmdebstrap")
    return shutil.which("mmdebstrap") or "mmdebstrap"


def bootstrap_command(path: str, target: Path, mirror: str | None, pinned: PinnedRoot) -> list[str]:
    """mmdebstrap's command for the pinned suite, minbase plus python3, as a tar (numeric owners) at `target`.

    /usr is merged by links (its hook), not by the usrmerge package, which
    would bring perl in; PRUNE goes and EMPTIED is emptied, with its mode, inside the tar.
    """
    customize = " ".join(
        [
            *(f'rm -rf "$1"/{part};' for part in PRUNE),
            *(f': > "$1"/{part}; chmod {mode} "$1"/{part};' for part, mode in EMPTIED.items()),
        ]
    )
    return [
        path,
        "--quiet",
        "--variant=minbase",
        "--include=python3",
        f"--hook-dir={MMDEBSTRAP_MERGED_USR}",
        f"--customize-hook={customize}",
        pinned.suite,
        str(target),
        *([mirror] if mirror else []),
    ]


def tar_digest(tar: Path) -> str:
    """`sha256:<hex>` of the tar's bytes: what the engine names the layer it imports from it."""
    digest = hashlib.sha256()
    with tar.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return f"sha256:{digest.hexdigest()}"


def tar_packages(tar: Path) -> dict[str, str]:
    """name -> version of the packages the root's dpkg status lists."""
    with tarfile.open(tar) as archive:
        member = archive.extractfile(DPKG_STATUS)
        return packages_in_status(member.read().decode("utf-8", "replace")) if member else {}


def build_root(target: Path, pinned: PinnedRoot) -> None:
    """Run mmdebstrap, reproducibly, into the tar `target`; CannotGrade with its last line when it fails."""
    mirror = debian_mirror()
    say(
        f"mmdebstrap {pinned.suite} (minbase + python3) from {mirror or 'its default archive'} (set {MIRROR_ENV} to choose) ..."
    )
    environment = {**os.environ, **BUILD_ENVIRONMENT, "SOURCE_DATE_EPOCH": str(pinned.source_date_epoch)}
    done = subprocess.run(
        bootstrap_command(_mmdebstrap(), target, mirror, pinned), capture_output=True, text=True, env=environment
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise CannotGrade(f"mmdebstrap failed: {tail[0]}")


def write_lock(tar: Path, pinned: PinnedRoot, lock: Path | None = None) -> PinnedRoot:
    """Pin the root in `tar`: its digest and packages written to the lock (LOCK unless given), keeping the suite,
    time and variables."""
    lock = lock or Path(LOCK)
    repinned = pinned._replace(layer=tar_digest(tar), packages=dict(sorted(tar_packages(tar).items())))
    kept = json.loads(lock.read_text()) if lock.is_file() else {}
    lock.write_text(json.dumps({**kept, **repinned._asdict()}, indent=1) + "\n")
    say(f"pinned {repinned.layer} ({len(repinned.packages)} packages) in {lock.name}")
    return repinned


def verify_tar(tar: Path, pinned: PinnedRoot) -> None:
    """Refuse a root whose bytes are not the pinned root's, naming the packages that differ."""
    digest = tar_digest(tar)
    if digest != pinned.layer:
        raise CannotGrade(
            f"the root built here ({digest[:19]}) is not the pinned root {pinned.layer[:19]}: "
            f"{changed_packages(tar_packages(tar), pinned)}; pull {PINNED_IMAGE} where a registry answers, "
            "or pin this root with `python -m oracle image --pin`"
        )


def import_tar(client: Engine, tar: Path, reference: str = LOCAL_TAG) -> Image:
    """Send a root's tar to the engine as `reference` (repository:tag), with LC_ALL set."""
    repository, tag = reference.rsplit(":", 1)
    with tar.open("rb") as archive:
        try:
            return client.import_image(archive, repository, tag, ["ENV LC_ALL=C.UTF-8"])
        except EngineError as error:
            raise CannotGrade(f"importing the root failed: {error.explanation}") from None


def build_local(client: Engine, pin: bool = False) -> Image:
    """The pinned root built here and imported as LOCAL_TAG; with `pin`, the root just built becomes the pinned one."""
    pinned = pinned_root()
    with tempfile.TemporaryDirectory(prefix="everyday-oracle-root-") as workdir:
        target = Path(workdir) / "root.tar"
        build_root(target, pinned)
        if pin:
            pinned = write_lock(target, pinned)
        verify_tar(target, pinned)
        return import_tar(client, target)


def _try_pull(client: Engine) -> Image | None:
    say(f"trying to pull {PINNED_IMAGE} ...")
    try:
        repository, digest = PINNED_IMAGE.split("@")
        return client.pull(repository, digest)
    except EngineError as error:
        say(f"pull failed ({str(error).splitlines()[0][:100]}); building locally instead")
        return None


def ensure_image(client: Engine, pin: bool = False) -> Image:
    """Use a verified image already present, else pull the pinned one, else build the pinned root here.

    An image named by EVERYDAY_ORACLE_IMAGE that does not verify is refused,
    never replaced; an unverified local tag is built again over. `pin`
    (the maintainer's `--pin`) builds, and pins the root it made.
    """
    if pin:
        return build_local(client, pin=True)
    try:
        image = resolve(client)
        say(f"using existing image {image.tags[0] if image.tags else ''} {image.id}")
        return image
    except Unverified as refusal:
        if os.environ.get(IMAGE_ENV):
            raise
        say(f"{str(refusal).split(';')[0]}: building the pinned root again")
    except CannotGrade:
        if os.environ.get(IMAGE_ENV):
            raise
    return _try_pull(client) or build_local(client)
