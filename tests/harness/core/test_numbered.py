"""Numbered histories beside a package: the next number, never over another file, whatever its time stamp."""

from __future__ import annotations

import re
from pathlib import Path

from harness.core.numbered import add_numbered, numbers

STAMPED = re.compile(r"^(\d{3,})-[0-9T]+\.json$")


def test_each_file_takes_the_next_number_and_leaves_every_earlier_one(tmp_path: Path) -> None:
    folder = tmp_path / "assessments"
    first = add_numbered(folder, STAMPED, lambda n: f"{n:03d}-20260101T000000.json", "one\n")
    (folder / "notes.txt").write_text("not numbered")
    second = add_numbered(folder, STAMPED, lambda n: f"{n:03d}-20260101T000001.json", "two\n")
    assert (first.name, second.name) == ("001-20260101T000000.json", "002-20260101T000001.json")
    assert first.read_text() == "one\n" and numbers(folder, STAMPED) == [1, 2]


def test_a_number_another_process_takes_meanwhile_under_another_time_moves_on(tmp_path: Path) -> None:
    folder = tmp_path / "assessments"
    theirs = folder / "001-20260101T000000.json"

    def name(number: int) -> str:
        if not theirs.exists():  # another regrade adds its file between our count and our write
            theirs.write_text("theirs")
        return f"{number:03d}-20260101T000009.json"

    mine = add_numbered(folder, STAMPED, name, "mine")
    assert mine.name == "002-20260101T000009.json" and theirs.read_text() == "theirs"
    assert numbers(folder, STAMPED) == [1, 2]
