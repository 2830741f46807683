"""Results from several machines: merged into one folder, or read together; never silently overwritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.core.verdicts import Verdict
from harness.results.merge import MergeConflict, merge_results
from harness.results.packages import PackageState, load_attempts
from harness.results.report.fixtures import SCRIPTED_CELL, unknown_schema_json, write_attempt, write_broken

OTHER = "everyday-workflows-scripted.scripted.local.stop-redirect"


def two_shards(tmp_path: Path) -> tuple[Path, Path]:
    """One campaign run as two shards on two machines: disjoint cells, each with its own summary.json."""
    a, b = tmp_path / "machine-a", tmp_path / "machine-b"
    write_attempt(a, "camp", SCRIPTED_CELL, "1-aaaa")
    write_attempt(b, "camp", OTHER, "1-bbbb", Verdict.FAILED)
    (a / "camp" / "summary.json").write_text("[1]")
    (b / "camp" / "summary.json").write_text("[2]")
    return a, b


def test_merge_two_shards_then_report_lists_both(tmp_path: Path) -> None:
    a, b = two_shards(tmp_path)
    into = tmp_path / "merged"
    assert main(["merge", str(a), str(b), "--into", str(into)]) == 0
    assert {x.key for x in load_attempts([into])} == {f"camp/{SCRIPTED_CELL}/1-aaaa", f"camp/{OTHER}/1-bbbb"}
    assert not (into / "camp" / "summary.json").exists()  # derived; the report recomputes it
    again = merge_results([a, b], into)  # merging the same shards twice is harmless
    assert again.copied == 0 and again.identical > 0


def test_merge_refuses_a_different_package_at_the_same_path_and_copies_nothing(tmp_path: Path) -> None:
    a, b = two_shards(tmp_path)
    write_attempt(b, "camp", SCRIPTED_CELL, "1-aaaa", Verdict.FAILED)  # same path as machine a's, other content
    into = tmp_path / "merged"
    with pytest.raises(MergeConflict, match=f"camp/{SCRIPTED_CELL}/1-aaaa/attempt.json"):
        merge_results([a, b], into)
    assert not into.exists()
    assert main(["merge", str(a), str(b), "--into", str(into)]) == 1


def test_merge_adds_a_review_written_on_another_machine(tmp_path: Path) -> None:
    a, _ = two_shards(tmp_path)
    into = tmp_path / "merged"
    merge_results([a], into)
    assert main(["review", str(a / "camp" / SCRIPTED_CELL / "1-aaaa"), "--note", "looked fine", "--reviewer", "r"]) == 0
    assert merge_results([a], into).copied == 1
    assert load_attempts([into])[0].reviewed


def test_several_results_folders_read_as_one_and_collisions_stay_visible(tmp_path: Path) -> None:
    a, b = two_shards(tmp_path)
    assert len(load_attempts([a, b, a])) == 2  # the same folder twice: each package once
    write_attempt(b, "camp", SCRIPTED_CELL, "1-aaaa", Verdict.FAILED)
    keys = sorted(x.key for x in load_attempts([a, b]))
    assert keys == sorted([f"camp/{SCRIPTED_CELL}/1-aaaa", f"camp/{SCRIPTED_CELL}/1-aaaa~2", f"camp/{OTHER}/1-bbbb"])


def test_broken_packages_are_attempts_not_crashes(tmp_path: Path) -> None:
    write_broken(tmp_path, "c", OTHER, "1-x", None)
    write_broken(tmp_path, "c", OTHER, "2-x", unknown_schema_json())
    write_broken(tmp_path, "c", OTHER, "3-x", json.dumps({"schema_version": 1, "verdict": "passed"}))
    (tmp_path / "calibration").mkdir()
    (tmp_path / "calibration" / "x.json").write_text("{}")
    loaded = {x.attempt: x for x in load_attempts([tmp_path])}
    assert set(loaded) == {"1-x", "2-x", "3-x"}
    assert loaded["1-x"].state is PackageState.BROKEN and loaded["1-x"].verdict == "broken"
    assert loaded["2-x"].state is PackageState.UNKNOWN_SCHEMA and "reads version 1" in (loaded["2-x"].problem or "")
    assert "does not match the schema" in (loaded["3-x"].problem or "")
    assert loaded["1-x"].evidence_mode == "scripted" and loaded["1-x"].case == "stop-redirect"
