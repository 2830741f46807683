"""How `python -m oracle image` builds: which Debian archive it bootstraps from (the override, the machine's apt
sources, or debootstrap's default; never a host written into the code), and how the root reaches the engine."""

from __future__ import annotations

import io
import os
import re
import tarfile
from pathlib import Path

import pytest

from oracle import image
from oracle.engine import NotFound

ARCHIVE = "http://archive.example.invalid/debian"  # reserved .invalid name: never a real host


def _apt(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "sources.list.d").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_override_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(image.MIRROR_ENV, "http://override.example.invalid/debian")
    apt = _apt(tmp_path, {"sources.list": f"deb {ARCHIVE} bookworm main\n"})
    assert image.debian_mirror(apt) == "http://override.example.invalid/debian"


def test_a_one_line_source_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(image.MIRROR_ENV, raising=False)
    apt = _apt(tmp_path, {"sources.list": f"# a comment\ndeb [arch=amd64] {ARCHIVE} bookworm main\n"})
    assert image.debian_mirror(apt) == ARCHIVE


def test_a_deb822_source_is_used_and_security_and_disabled_files_are_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(image.MIRROR_ENV, raising=False)
    apt = _apt(
        tmp_path,
        {
            "sources.list.d/a.list.disabled-by-someone": "deb http://disabled.example.invalid/debian bookworm main\n",
            "sources.list.d/b-security.sources": "Types: deb\nURIs: http://security.example.invalid/debian-security\nSuites: bookworm-security\n",
            "sources.list.d/debian.sources": f"Types: deb\nURIs: {ARCHIVE}\nSuites: bookworm bookworm-updates\nComponents: main\n",
        },
    )
    assert image.debian_mirror(apt) == ARCHIVE


def test_no_source_means_debootstraps_own_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(image.MIRROR_ENV, raising=False)
    assert image.debian_mirror(_apt(tmp_path, {})) is None


def test_the_image_module_names_no_host() -> None:
    source = Path(image.__file__).read_text()
    assert not re.findall(r"[a-z]+://[^\s\"')]+", source), "name no archive or mirror host in oracle/image.py"


def test_a_root_folder_is_imported_as_an_image(client, witness, tmp_path: Path) -> None:
    """How `python -m oracle image` hands its debootstrapped root to the engine (here a one-file root, under a test tag)."""
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "hello.txt").write_text("hello\n")
    reference = f"everyday-evals-oracle-import:test-{os.getpid()}"
    imported = image.import_root(client, root, reference)
    try:
        assert imported.tags == [reference]
        assert "LC_ALL=C.UTF-8" in witness.api.inspect_image(imported.id)["Config"]["Env"]
        holder = witness.api.create_container(imported.id, ["true"])["Id"]
        try:
            stream, _ = witness.api.get_archive(holder, "/etc/hello.txt")
            with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as archive:
                member = archive.extractfile("hello.txt")
                assert member is not None and member.read() == b"hello\n"
        finally:
            witness.api.remove_container(holder, force=True)
    finally:
        witness.api.remove_image(imported.id, force=True)
    with pytest.raises(NotFound):
        client.image(reference)


def test_a_root_that_cannot_be_tarred_leaves_no_image(client, tmp_path: Path) -> None:
    reference = f"everyday-evals-oracle-import:test-{os.getpid()}"
    with pytest.raises(image.CannotGrade, match="tar of the root failed"):
        image.import_root(client, tmp_path / "absent", reference)
    with pytest.raises(NotFound):
        client.image(reference)


def test_both_bootstrappers_make_the_same_root_and_mmdebstrap_prunes_it_in_its_tar(tmp_path: Path) -> None:
    fast = image.bootstrap_command("mmdebstrap", "/usr/bin/mmdebstrap", tmp_path / "root.tar", "MIRROR")
    slow = image.bootstrap_command("debootstrap", "/usr/sbin/debootstrap", tmp_path / "root", None)
    for command in (fast, slow):
        assert {"--variant=minbase", "--include=python3", "bookworm"} <= set(command)
    assert fast[-2:] == [str(tmp_path / "root.tar"), "MIRROR"] and slow[-1] == str(tmp_path / "root")
    [hook] = [part for part in fast if part.startswith("--customize-hook=")]
    assert all(f'"$1"/{part}' in hook for part in image._PRUNE)
    assert image.BOOTSTRAPPERS[0] == "mmdebstrap"
