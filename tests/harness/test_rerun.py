"""`--resume --rerun`: exactly the slots named are played again, beside the old attempts, which are superseded.

The story is replaced by a script of verdicts (``_play``), so the slots, the
records and the supersession are the real ones without starting a product.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.cli import build_parser, main, run_settings
from harness.core.records import AttemptRecord
from harness.core.settings import RunSettings
from harness.core.story_inputs import draw, drawing
from harness.core.verdicts import Verdict
from harness.results.epochs import by_cell, epoch_ends, recorded_in
from harness.results.packages import read_package
from harness.results.plan import write_plan
from harness.results.summary import summarize_campaign
from harness.running import attempt
from harness.running.attempt import Conclusion, run_cell
from harness.running.selection import select

CELL = "everyday-workflows-scripted.scripted.local.build-revise"
P, F, INFRA, U = Verdict.PASSED, Verdict.FAILED, Verdict.INFRASTRUCTURE_FAILED, Verdict.UNEXERCISED


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> list[Verdict]:
    """The verdicts the next attempts end with, in order; every attempt played takes the next one."""
    verdicts: list[Verdict] = []

    def play(cell: Any, context: Any, open_journey: Any) -> tuple[Verdict, str, Conclusion]:
        """As a journey does: the story draws its inputs (kept in the reason, for the test to read)."""
        with drawing():
            nonce = draw("nonce", lambda: secrets.token_hex(4))
        return verdicts.pop(0), f"nonce {nonce}", Conclusion()

    monkeypatch.setattr(attempt, "_play", play)
    return verdicts


def _settings(tmp_path: Path, *argv: str) -> RunSettings:
    return run_settings(build_parser().parse_args(["run", "--results", str(tmp_path), *argv]))


def _run(settings: RunSettings) -> list[AttemptRecord]:
    write_plan(settings)
    (cell,) = select(ids=settings.cells)
    return run_cell(cell, settings, _no_journey)


def _no_journey(context: Any) -> Iterator[None]:
    raise AssertionError("the scripted _play opens no journey")


def _records(tmp_path: Path) -> list[AttemptRecord]:
    return recorded_in(tmp_path / "c" / CELL)


def test_rerun_plays_exactly_the_infrastructure_failures_again(tmp_path: Path, script: list[Verdict]) -> None:
    script += [P, INFRA, F, INFRA, U]
    first = _run(_settings(tmp_path, "--id", CELL, "--campaign", "c", "--attempts", "5"))
    broke = {record.attempt for record in first if record.verdict is INFRA}
    assert len(broke) == 2

    assert _run(_settings(tmp_path, "--resume", "c")) == [], "by default only missing slots are played"

    script += [P, P]
    again = _run(_settings(tmp_path, "--resume", "c", "--rerun", "infrastructure_failed"))
    assert {record.supersedes for record in again} == broke and script == []
    records = _records(tmp_path)
    assert len(records) == 7, "the old attempts stay on disk"
    ends = epoch_ends(records)
    assert sorted(end.verdict.value for end in ends) == ["failed", "passed", "passed", "passed", "unexercised"]
    assert not broke & {end.attempt for end in ends}, "what was played again is counted no more"
    assert [len(found) for found in by_cell(records).values()] == [5]

    assert _run(_settings(tmp_path, "--resume", "c", "--rerun", "infrastructure_failed")) == []


def test_the_summary_counts_the_newest_attempt_per_slot(
    tmp_path: Path, script: list[Verdict], capsys: pytest.CaptureFixture[str]
) -> None:
    script += [P, INFRA, INFRA, P, P]
    _run(_settings(tmp_path, "--id", CELL, "--campaign", "c", "--attempts", "3"))
    _run(_settings(tmp_path, "--resume", "c", "--rerun", "infrastructure_failed"))
    assert main(["summary", "c", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.count("infrastructure_failed (superseded)") == 2 and out.count("passed ") == 3
    assert main(["summary", "c", "--results", str(tmp_path), "--json"]) == 0
    tally = json.loads(capsys.readouterr().out)["campaigns"][0]["cells"][CELL]["tally"]
    assert (tally["passed"], tally["infrastructure_failed"]) == (3, 0)


def test_missing_slots_and_interruptions_are_played_again(tmp_path: Path, script: list[Verdict]) -> None:
    script += [P]
    _run(_settings(tmp_path, "--id", CELL, "--campaign", "c", "--attempts", "1"))
    (old,) = _records(tmp_path)
    path = tmp_path / "c" / CELL / old.attempt / "attempt.json"
    path.write_text(old.model_copy(update={"interrupted": True, "verdict": INFRA}).model_dump_json())
    script += [P, F, P]
    again = _run(_settings(tmp_path, "--resume", "c", "--attempts", "3", "--rerun", "missing,unexercised"))
    assert [record.supersedes for record in again] == [old.attempt, None, None]
    assert len({record.reason for record in again}) == 3, "slots of a plain run draw their own inputs"


def test_a_paired_run_plays_each_slot_once_per_variant_back_to_back(tmp_path: Path, script: list[Verdict]) -> None:
    script += [P, F, P, INFRA]
    played = _run(
        _settings(tmp_path, "--id", CELL, "--campaign", "c", "--attempts", "2", "--pair", "pace=,0.01"),
    )
    assert [(r.pair and r.pair.variant, r.pair and r.pair.first) for r in played] == [
        ("pace=", True),
        ("pace=0.01", False),
    ] * 2
    pairs = [record.pair.id for record in played if record.pair]
    assert pairs[0] == pairs[1] != pairs[2] == pairs[3]
    nonces = [record.reason for record in played]
    assert nonces[0] == nonces[1] != nonces[2] == nonces[3], "a pair's halves see the same story inputs"
    # A half that broke plays its whole pair again, both halves under the same pair id.
    script += [P, P]
    again = _run(_settings(tmp_path, "--resume", "c", "--rerun", "infrastructure_failed"))
    assert [record.pair and record.pair.id for record in again] == [pairs[2]] * 2
    assert [record.supersedes for record in again] == [played[2].attempt, played[3].attempt]
    # The campaign's figures keep the variants apart, each over its newest attempt per slot.
    summary = summarize_campaign("c", [read_package(tmp_path, path) for path in (tmp_path / "c").glob("*/*")])
    tallies = {
        cell: (f.tally.passed, f.tally.failed, f.tally.infrastructure_failed) for cell, f in summary.cells.items()
    }
    assert tallies == {f"{CELL} [pace=]": (2, 0, 0), f"{CELL} [pace=0.01]": (1, 1, 0)}


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--id", CELL, "--rerun", "missing"], "--rerun says what a --resume plays again"),
        (["--resume", "c", "--rerun", "failed"], "--rerun"),
        (["--id", CELL, "--pair", "deadline=1,2"], "'deadline' cannot be paired"),
        (["--id", CELL, "--pair", "pace=1"], "write SETTING=BASE,CANDIDATE"),
        (["--id", CELL, "--pair", "pace=,2", "--pace", "1"], "do not name --pace beside it"),
        (["--id", CELL, "--pair", "product-defect=,nope"], "has no defect 'nope'"),
        (["--id", CELL, "--pair", "pace=,2", "--engine", "ray"], "--pair: the local engine's only"),
        (["--resume", "c", "--pair", "pace=,2"], "--pair is part of a campaign's plan"),
    ],
)
def test_bad_rerun_and_pair_flags_are_one_line(
    tmp_path: Path, argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    write_plan(RunSettings(cells=(CELL,), campaign="c", results=tmp_path))
    assert main(["run", "--results", str(tmp_path), *argv]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and says in error, error
