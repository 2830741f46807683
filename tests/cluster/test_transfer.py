"""Packages travel home whole: placeholders stay on the node, a collision moves nothing, every package is complete."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.running.attempt import new_attempt_id
from harness.running.cluster.transfer import PackageCollision, lay_out_scratch, pack, unpack_home


def _package(cell_folder: Path, name: str) -> Path:
    folder = cell_folder / name
    (folder / "screenshots").mkdir(parents=True)
    (folder / "attempt.json").write_text("{}")
    (folder / "screenshots" / "final.png").write_bytes(b"png")
    return folder


def test_a_node_numbers_on_from_the_campaigns_packages_and_sends_home_only_its_own(tmp_path: Path) -> None:
    scratch_cell = tmp_path / "scratch" / "c1" / "suite.p.e.case"
    lay_out_scratch(scratch_cell, held=2)
    attempt = new_attempt_id(scratch_cell)
    assert attempt.startswith("3-"), "two packages at home: the node's attempt is the third"
    _package(scratch_cell, attempt)
    home = tmp_path / "results" / "c1"
    arrived = unpack_home(pack(tmp_path / "scratch" / "c1"), home)
    assert arrived == [home / "suite.p.e.case" / attempt]
    assert sorted(p.name for p in (home / "suite.p.e.case").iterdir()) == [attempt]
    assert (arrived[0] / "screenshots" / "final.png").read_bytes() == b"png"
    assert [p.name for p in (tmp_path / "results").iterdir()] == ["c1"], "the staging folder is gone"


def test_a_package_that_would_overwrite_one_at_home_is_refused(tmp_path: Path) -> None:
    _package(tmp_path / "scratch" / "c1" / "cell", "1-aaaa")
    data = pack(tmp_path / "scratch" / "c1")
    home = tmp_path / "results" / "c1"
    _package(home / "cell", "1-aaaa")
    (home / "cell" / "1-aaaa" / "attempt.json").write_text('{"home": true}')
    with pytest.raises(PackageCollision):
        unpack_home(data, home)
    assert (home / "cell" / "1-aaaa" / "attempt.json").read_text() == '{"home": true}'
