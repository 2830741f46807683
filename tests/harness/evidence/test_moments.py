"""The JSON-lines reader every view of a package's moments goes through: whole files at once, torn lines dropped."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from harness.evidence.moments import API_CALL, ApiCall, valid_lines

AT = datetime(2026, 11, 1, 9, tzinfo=UTC)


def line(error: str) -> str:
    return API_CALL.dump_json(ApiCall(at=AT, method="GET", path="/x", seconds=1.0, error=error)).decode()


def test_a_line_ends_at_a_newline_only_so_a_unicode_line_separator_in_a_string_survives(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    separated = "cut\u2028here\x85too"
    path.write_text(f"{line(separated)}\n{line('plain')}\n")
    assert [call["error"] for call in valid_lines(path, ApiCall)] == [separated, "plain"]


def test_blank_torn_and_malformed_lines_are_dropped_and_the_rest_kept_in_order(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    path.write_text(f'\n{line("one")}\n  \n{{"at": "torn\n{line("two")}\n{{"method": "GET"}}\n{line("three")}')
    assert [call["error"] for call in valid_lines(path, ApiCall)] == ["one", "two", "three"]
    assert valid_lines(tmp_path / "missing.jsonl", ApiCall) == []
    (tmp_path / "empty.jsonl").write_text("\n")
    assert valid_lines(tmp_path / "empty.jsonl", ApiCall) == []
