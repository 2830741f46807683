"""The image a sandboxed runner runs in: the oracle's Debian root plus the runner's code, made on the engine itself.

No registry is needed: the image is the oracle's locally built root
(``python -m oracle image``: mmdebstrap, or its pinned pull where a registry
answers) with the runner's Python code copied in and committed, tagged by a
digest of that code, so a changed runner gets a new image and an unchanged
one is reused. ``EVERYDAY_RUNNER_IMAGE`` names a prepared image instead (a
pinned ``repository@sha256:...`` is pulled when the engine lacks it, where a
registry is reachable). What goes in is found, not listed: the distributions
a probe interpreter imports when it loads the runner, the scripted agent and
every registered agent CLI's adapter (the project's own modules it loads
outside the runtime's packages among them), and the metadata that registers those
CLIs (their entry points). The CLIs' programs are not in the image: a run of
one gets their install read-only (``testbed.sandbox.containers``).
"""

from __future__ import annotations

import hashlib
import io
import logging
import subprocess
import sys
import tarfile
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path

from harness.agents.registry import ENTRY_POINT_GROUP
from oracle.engine import Engine, EngineError, Image, NotFound
from oracle.image import CannotGrade
from oracle.image import resolve as resolve_oracle_image

log = logging.getLogger("testbed.sandbox")

IMAGE_ENV = "EVERYDAY_RUNNER_IMAGE"
REPOSITORY = "everyday-evals-runner"
CODE_ROOT = "/opt/runner"
DIGEST_LABEL = "everyday-evals.runner.code"
PROJECT_ROOT = Path(__file__).resolve().parents[3]
PROJECT_PACKAGES = ("harness/agents", "harness/testbed")
HOST_ONLY = ("__editable__", "_distutils_hack")
"""Import hooks of this machine's virtualenv: the image carries the code itself, at its root."""
_PROBE = """
import importlib, pkgutil, sys, httpx
import harness.testbed.runner, harness.agents.scripted
from harness.agents.adapters import adapter_for
from harness.agents.registry import registered
adapter_for("scripted")
for name in registered():
    adapter_for(name)
for info in pkgutil.iter_modules(harness.agents.scripted.__path__):
    importlib.import_module("harness.agents.scripted." + info.name)
httpx.Client(transport=httpx.HTTPTransport(uds="/nonexistent")).close()
import httpcore._sync.connection_pool, h11, anyio
print("\\n".join(sorted({getattr(m, "__file__", None) or "" for m in list(sys.modules.values())})))
"""


class RunnerImageError(Exception):
    """No runner image could be had: one line saying why and what to do."""


@cache
def runner_files() -> tuple[tuple[str, Path], ...]:
    """(name inside the image, file on this machine) for every file the runner needs: its code and the
    third-party distributions it imports, found by a probe interpreter that loads them."""
    found = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, cwd=PROJECT_ROOT
    ).stdout.split()
    roots: set[Path] = set()
    modules: set[Path] = set()  # the project's own, outside its runtime packages (the oracle's HTTP, say)
    for name in found:
        path = Path(name)
        for parent in path.parents:
            if parent.name == "site-packages":
                top = path.relative_to(parent).parts[0]
                if not top.startswith(HOST_ONLY):
                    roots.add(parent / top)
                break
        else:
            if path.is_relative_to(PROJECT_ROOT) and not path.is_relative_to(PROJECT_ROOT / "harness"):
                modules.add(path)
    files: list[tuple[str, Path]] = []
    for root in sorted(roots):
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        files += [(str(p.relative_to(root.parent)), p) for p in paths if "__pycache__" not in p.parts]
    files.append(("harness/__init__.py", PROJECT_ROOT / "harness" / "__init__.py"))
    files += [(str(p.relative_to(PROJECT_ROOT)), p) for p in sorted(modules)]
    for package in PROJECT_PACKAGES:
        folder = PROJECT_ROOT / package
        files += [(str(p.relative_to(PROJECT_ROOT)), p) for p in sorted(folder.rglob("*.py"))]
    for metadata in registering_metadata():
        files += [(str(p.relative_to(metadata.parent)), p) for p in sorted(metadata.rglob("*")) if p.is_file()]
    return tuple(files)


def registering_metadata() -> list[Path]:
    """The metadata folders (``*.dist-info``) whose entry points register the agent CLIs."""
    found = {Path(str(entry.dist._path)).resolve() for entry in entry_points(group=ENTRY_POINT_GROUP) if entry.dist}  # type: ignore[attr-defined]
    return sorted(found)


@cache
def code_digest() -> str:
    """sha256 over the names and bytes of every file the image carries besides the oracle's root."""
    digest = hashlib.sha256()
    for name, path in runner_files():
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _code_tar() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, path in runner_files():
            info = archive.gettarinfo(str(path), arcname=f"{CODE_ROOT.lstrip('/')}/{name}")
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            info.mode = 0o644
            info.mtime = 0
            with path.open("rb") as handle:
                archive.addfile(info, handle)
    return buffer.getvalue()


def local_tag() -> str:
    return f"{REPOSITORY}:{code_digest()[:16]}"


def ensure(client: Engine, reference: str | None = None) -> Image:
    """The runner image on ``client``'s engine: ``reference`` (or $EVERYDAY_RUNNER_IMAGE), pulled if it is a pinned
    digest the engine lacks; else this code's image, built from the oracle's root when missing."""
    if reference:
        return _present_or_pulled(client, reference)
    try:
        return client.image(local_tag())
    except NotFound:
        pass
    try:
        base = resolve_oracle_image(client)
    except CannotGrade as error:
        raise RunnerImageError(f"the runner image is built on the oracle's image: {error}") from None
    holder = client.create({"Image": base.id, "Cmd": ["true"], "Labels": {DIGEST_LABEL: code_digest()}})
    try:
        client.put_archive(holder, "/", _code_tar())
        repository, tag = local_tag().split(":")
        changes = [f"ENV PYTHONPATH={CODE_ROOT}", "ENV PYTHONDONTWRITEBYTECODE=1", f"WORKDIR {CODE_ROOT}"]
        built = client.commit(holder, repository, tag, changes, {DIGEST_LABEL: code_digest()})
    finally:
        client.remove(holder)
    remove_older(client, built)
    return built


def remove_older(client: Engine, kept: Image, label: str = DIGEST_LABEL) -> list[str]:
    """Remove the images carrying ``label`` (the runner images this project built: each code change builds one)
    other than ``kept`` that no container uses; the ids removed. The engine refuses an image a container, running
    or not, still uses: it stays."""
    removed = []
    for older in client.images(label):
        if older.id == kept.id:
            continue
        try:
            client.remove_image(older.id)
        except EngineError as error:
            log.info("runner image %s kept: %s", older.id[:19], error.explanation or error)
            continue
        removed.append(older.id)
    return removed


def _present_or_pulled(client: Engine, reference: str) -> Image:
    try:
        return client.image(reference)
    except NotFound:
        pass
    if "@sha256:" not in reference:
        raise RunnerImageError(f"runner image {reference!r} is not on the engine (only a pinned @sha256 is pulled)")
    repository, digest = reference.split("@", 1)
    try:
        return client.pull(repository, digest)
    except EngineError as error:
        raise RunnerImageError(f"runner image {reference!r} could not be pulled: {error.explanation}") from None
