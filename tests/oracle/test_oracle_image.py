"""Which Debian archive `python -m oracle image` bootstraps from: the override, the machine's apt sources, or debootstrap's default; never a host written into the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oracle import image

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
