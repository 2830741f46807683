"""Intake unit tests: every refusal is a failed check with a clear detail; extraction is private and cleaned up."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from calibration.deliveries import project
from calibration.zips import incompressible, lying_size_zip, zip_bytes
from oracle import checks as ids
from oracle.intake import IntakeLimits, intake


def _intake(tmp_path: Path, data: bytes, limits: IntakeLimits | None = None):
    path = tmp_path / "delivery.zip"
    path.write_bytes(data)
    with intake(path, limits) as (checks, root):
        return checks, root


@pytest.mark.parametrize(
    ("name", "expected", "words"),
    [
        ("/etc/evil.py", ids.INTAKE_SAFE_PATHS, "absolute"),
        ("C:/evil.py", ids.INTAKE_SAFE_PATHS, "absolute"),
        ("a/../../evil.py", ids.INTAKE_SAFE_PATHS, "'..'"),
        ("a\\evil.py", ids.INTAKE_SAFE_PATHS, "backslash"),
    ],
)
def test_unsafe_names_are_refused(tmp_path: Path, name: str, expected: str, words: str) -> None:
    checks, root = _intake(tmp_path, zip_bytes({**project(), name: "x = 1\n"}))
    assert root is None
    assert [c.id for c in checks] == [expected]
    assert not checks[0].passed and words in checks[0].detail


def test_symlink_entries_are_refused(tmp_path: Path) -> None:
    checks, root = _intake(tmp_path, zip_bytes(project(), links={"slugify-tool/link": "/etc/passwd"}))
    assert root is None and checks[0].id == ids.INTAKE_NO_LINKS and "symbolic link" in checks[0].detail


def test_duplicate_names_are_refused(tmp_path: Path) -> None:
    import io
    import warnings
    import zipfile

    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w") as archive:
        warnings.simplefilter("ignore")
        archive.writestr("slugify.py", "a = 1\n")
        archive.writestr("slugify.py", "a = 2\n")
    checks, root = _intake(tmp_path, buffer.getvalue())
    assert root is None and checks[0].id == ids.INTAKE_UNIQUE_NAMES


def test_file_used_as_folder_is_refused(tmp_path: Path) -> None:
    checks, _ = _intake(tmp_path, zip_bytes({"a": "x", "a/b.py": "y"}))
    assert checks[0].id == ids.INTAKE_UNIQUE_NAMES and "both a file and a folder" in checks[0].detail


def test_too_many_entries_are_refused(tmp_path: Path) -> None:
    checks, _ = _intake(tmp_path, zip_bytes({f"f{i}.txt": "x" for i in range(12)}), IntakeLimits(max_entries=10))
    assert checks[0].id == ids.INTAKE_LIMITS and "12 entries" in checks[0].detail


def test_entry_over_size_limit_is_refused(tmp_path: Path) -> None:
    checks, _ = _intake(tmp_path, zip_bytes({"big.bin": incompressible(5000)}), IntakeLimits(max_entry_bytes=4000))
    assert checks[0].id == ids.INTAKE_LIMITS and "4000-byte limit" in checks[0].detail


def test_total_over_size_limit_is_refused(tmp_path: Path) -> None:
    files = {f"f{i}.bin": incompressible(3000, seed=str(i)) for i in range(4)}
    checks, _ = _intake(tmp_path, zip_bytes(files), IntakeLimits(max_total_bytes=10_000))
    assert checks[0].id == ids.INTAKE_LIMITS and "total" in checks[0].detail


def test_compression_bomb_is_refused_while_streaming(tmp_path: Path) -> None:
    checks, _ = _intake(tmp_path, zip_bytes({"bomb.bin": b"\0" * (1024 * 1024)}))
    assert checks[0].id == ids.INTAKE_LIMITS and "compression bomb" in checks[0].detail


def test_header_declaring_too_much_is_refused_before_reading(tmp_path: Path) -> None:
    data = lying_size_zip({"a.bin": b"small"}, "a.bin", 50 * 1024 * 1024)
    checks, _ = _intake(tmp_path, data)
    assert checks[0].id == ids.INTAKE_LIMITS and "declares" in checks[0].detail


def test_lying_size_header_is_caught_by_counting_real_bytes(tmp_path: Path) -> None:
    data = lying_size_zip({"a.bin": incompressible(30_000)}, "a.bin", 10)
    checks, _ = _intake(tmp_path, data)
    assert checks[0].id == ids.INTAKE_HONEST_SIZES and "holds 30000" in checks[0].detail


@pytest.mark.parametrize("data", [b"", b"not a zip at all", zip_bytes(project())[:200]])
def test_unreadable_archives_fail_with_one_line(tmp_path: Path, data: bytes) -> None:
    checks, root = _intake(tmp_path, data)
    assert root is None and checks[0].id == ids.INTAKE_READABLE and "\n" not in checks[0].detail


def test_corrupted_member_data_fails_readable(tmp_path: Path) -> None:
    data = bytearray(zip_bytes({"a.bin": incompressible(5000)}))
    data[40:60] = b"\xff" * 20  # inside the compressed data
    checks, _ = _intake(tmp_path, bytes(data))
    assert checks[0].id in (ids.INTAKE_READABLE, ids.INTAKE_HONEST_SIZES)
    assert not checks[0].passed


def test_encrypted_entries_fail_readable(tmp_path: Path) -> None:
    import struct

    data = bytearray(zip_bytes({"a.py": "x = 1\n"}))
    struct.pack_into("<H", data, 6, 1)  # local header: "encrypted" flag
    central = data.rindex(b"PK\x01\x02")
    struct.pack_into("<H", data, central + 8, 1)
    checks, _ = _intake(tmp_path, bytes(data))
    assert checks[0].id == ids.INTAKE_READABLE and "encrypted" in checks[0].detail


def test_missing_file_fails_readable(tmp_path: Path) -> None:
    with intake(tmp_path / "nope.zip") as (checks, root):
        assert root is None and checks[0].id == ids.INTAKE_READABLE and "no file" in checks[0].detail


def test_windows_zip_files_become_readable_for_everyone(tmp_path: Path) -> None:
    path = tmp_path / "windows.zip"
    path.write_bytes(zip_bytes(project(), windows=True))
    with intake(path) as (checks, root):
        assert all(c.passed for c in checks)
        source = root / "slugify-tool" / "slugify.py"
        assert stat.S_IMODE(source.stat().st_mode) == 0o644
        assert stat.S_IMODE((root / "slugify-tool").stat().st_mode) == 0o755


def test_unix_modes_from_the_archive_are_not_trusted(tmp_path: Path) -> None:
    path = tmp_path / "unix.zip"
    path.write_bytes(zip_bytes(project()))  # entries carry mode 0600
    with intake(path) as (_, root):
        assert stat.S_IMODE((root / "slugify-tool" / "README.md").stat().st_mode) == 0o644


def test_extraction_folder_is_private_and_removed(tmp_path: Path) -> None:
    path = tmp_path / "good.zip"
    path.write_bytes(zip_bytes(project()))
    with intake(path) as (_, root):
        assert stat.S_IMODE(root.parent.stat().st_mode) == 0o700
        kept = root.parent
    assert not kept.exists()


def test_extraction_folder_is_removed_on_errors_too(tmp_path: Path) -> None:
    path = tmp_path / "good.zip"
    path.write_bytes(zip_bytes(project()))
    with pytest.raises(KeyboardInterrupt), intake(path) as (_, root):
        kept = root.parent
        raise KeyboardInterrupt
    assert not kept.exists()


def test_refused_archive_leaves_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    _intake(tmp_path, zip_bytes({"../evil": "x"}))
    assert not list(tmp_path.glob("everyday-oracle-*"))
