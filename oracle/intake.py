"""Host-side ZIP intake: decide whether an archive is safe to unpack, then unpack it privately.

Nothing from the delivery runs here; this only reads bytes. Every refusal is a
failed intake check with a one-line detail, never an exception, because an
unsafe archive is a property of the delivery, not a crash of the oracle.
Sizes are counted from the bytes actually decompressed, never trusted from
headers, so a lying header or a compression bomb is caught while streaming.
"""

from __future__ import annotations

import contextlib
import copy
import shutil
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from pydantic import BaseModel

from oracle import checks as ids
from oracle.checks import Check, check


class IntakeLimits(BaseModel):
    """How much an honest delivery of a small CLI tool could possibly need, with room to spare."""

    max_entries: int = 500
    max_entry_bytes: int = 2 * 1024 * 1024
    max_total_bytes: int = 10 * 1024 * 1024
    max_ratio: float = 100.0
    ratio_floor_bytes: int = 64 * 1024  # tiny files may compress absurdly well; only judge ratio above this


_CHUNK = 64 * 1024


class IntakeRefused(Exception):
    """Raised inside intake to stop at the first problem; converted to a failed Check."""

    def __init__(self, check_id: str, detail: str) -> None:
        super().__init__(detail)
        self.check_id = check_id
        self.detail = detail


def _path_problem(name: str) -> str | None:
    """Why a member name is unsafe to create below the extraction folder, or None."""
    if not name:
        return "an entry has an empty name"
    if "\\" in name:
        return f"entry {name!r} contains a backslash"
    if "\x00" in name:
        return f"entry {name!r} contains a NUL byte"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return f"entry {name!r} is an absolute path"
    if ".." in PurePosixPath(name).parts:
        return f"entry {name!r} contains a '..' part"
    return None


def _unix_mode(info: zipfile.ZipInfo) -> int:
    """Unix mode bits from the external attributes; 0 for archives made on Windows."""
    if info.create_system != 3:  # 3 = Unix; others carry no Unix mode bits
        return 0
    return info.external_attr >> 16


def _validate_names(infos: list[zipfile.ZipInfo], limits: IntakeLimits) -> None:
    """Reject unsafe names, links, duplicates and too many entries before reading any data."""
    if len(infos) > limits.max_entries:
        raise IntakeRefused(ids.INTAKE_LIMITS, f"{len(infos)} entries, more than the limit of {limits.max_entries}")
    seen: set[str] = set()
    for info in infos:
        problem = _path_problem(info.filename)
        if problem:
            raise IntakeRefused(ids.INTAKE_SAFE_PATHS, problem)
        mode = _unix_mode(info)
        if mode and stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
            kind = "a symbolic link" if stat.S_ISLNK(mode) else "a special file"
            raise IntakeRefused(ids.INTAKE_NO_LINKS, f"entry {info.filename!r} is {kind}")
        key = info.filename.rstrip("/")
        if key in seen:
            raise IntakeRefused(ids.INTAKE_UNIQUE_NAMES, f"entry {key!r} appears more than once")
        seen.add(key)
    files = {i.filename for i in infos if not i.is_dir()}
    for key in seen:  # a file may not also be used as a folder
        clash = next((str(p) for p in PurePosixPath(key).parents if str(p) in files), None)
        if clash:
            raise IntakeRefused(ids.INTAKE_UNIQUE_NAMES, f"{clash!r} is both a file and a folder")


def _stream_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, budget: int, limits: IntakeLimits
) -> int:
    """Copy one member to disk counting real bytes; returns how many were written.

    zipfile stops reading at the header's declared size, which would hide a
    lying header. Opening a copy whose declared size is raised to our own limit
    lets the decompressor run to its true end, so we see the real length.
    """
    if info.file_size > limits.max_entry_bytes:
        raise IntakeRefused(
            ids.INTAKE_LIMITS,
            f"entry {info.filename!r} declares {info.file_size} bytes, over the {limits.max_entry_bytes}-byte limit",
        )
    probe = copy.copy(info)
    probe.file_size = limits.max_entry_bytes + 1
    written = 0
    with archive.open(probe) as source, open(target, "wb") as sink:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > limits.max_entry_bytes:
                raise IntakeRefused(
                    ids.INTAKE_LIMITS, f"entry {info.filename!r} expands past the {limits.max_entry_bytes}-byte limit"
                )
            if written > budget:
                raise IntakeRefused(
                    ids.INTAKE_LIMITS, f"archive expands past the {limits.max_total_bytes}-byte total limit"
                )
            if written > limits.ratio_floor_bytes and written > limits.max_ratio * max(info.compress_size, 1):
                raise IntakeRefused(
                    ids.INTAKE_LIMITS,
                    f"entry {info.filename!r} expands more than {limits.max_ratio:g}x (compression bomb)",
                )
            sink.write(chunk)
    if written != info.file_size:
        raise IntakeRefused(
            ids.INTAKE_HONEST_SIZES,
            f"entry {info.filename!r} header says {info.file_size} bytes but it holds {written}",
        )
    return written


def _extract(archive: zipfile.ZipFile, root: Path, limits: IntakeLimits) -> None:
    infos = archive.infolist()
    _validate_names(infos, limits)
    budget = limits.max_total_bytes
    for info in infos:
        target = root.joinpath(*PurePosixPath(info.filename).parts)
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        budget -= _stream_member(archive, info, target, budget, limits)
    _normalise_permissions(root)


def _normalise_permissions(root: Path) -> None:
    """Make everything readable by the unprivileged container user, nothing executable or writable by others.

    Modes from the archive are ignored on purpose: Windows-made ZIPs carry none
    and a Unix ZIP's bits are the delivery's choice, not ours.
    """
    root.chmod(0o755)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


def _all_passed() -> list[Check]:
    return [
        check(ids.INTAKE_READABLE, True, "archive opened and every entry read"),
        check(ids.INTAKE_SAFE_PATHS, True, "every entry stays inside the delivery folder"),
        check(ids.INTAKE_NO_LINKS, True, "no links or special files"),
        check(ids.INTAKE_UNIQUE_NAMES, True, "every entry name is unique"),
        check(ids.INTAKE_LIMITS, True, "entry count, sizes and compression ratios within limits"),
        check(ids.INTAKE_HONEST_SIZES, True, "every entry holds exactly the bytes its header declares"),
    ]


@contextlib.contextmanager
def intake(zip_path: Path, limits: IntakeLimits | None = None) -> Iterator[tuple[list[Check], Path | None]]:
    """Check and extract a ZIP into a fresh private folder that is removed on exit, whatever happens.

    Yields (checks, folder); folder is None when intake refused the archive,
    and the checks then end with the one failed intake check.
    """
    limits = limits or IntakeLimits()
    workdir = Path(tempfile.mkdtemp(prefix="everyday-oracle-"))  # mode 0700: private to us
    root = workdir / "delivery"
    root.mkdir()
    try:
        yield _checked_extract(zip_path, root, limits)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _checked_extract(zip_path: Path, root: Path, limits: IntakeLimits) -> tuple[list[Check], Path | None]:
    try:
        if not zip_path.is_file():
            raise IntakeRefused(ids.INTAKE_READABLE, f"no file at {zip_path}")
        with zipfile.ZipFile(zip_path) as archive:
            _extract(archive, root, limits)
    except IntakeRefused as refused:
        return [check(refused.check_id, False, refused.detail)], None
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        zlib.error,
        EOFError,
        NotImplementedError,
        RuntimeError,
        ValueError,
        OSError,
    ) as error:
        # RuntimeError: encrypted entries; NotImplementedError: unsupported compression
        return [check(ids.INTAKE_READABLE, False, f"archive could not be read: {error}".splitlines()[0])], None
    return _all_passed(), root
