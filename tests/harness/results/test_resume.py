"""What a resume counts as done, and the one-line refusals of a resume that cannot be."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from harness.cli import main
from harness.core.records import AttemptRecord
from harness.core.settings import RunSettings
from harness.core.verdicts import Verdict
from harness.results.epochs import complete_epochs, epoch_ends
from harness.results.plan import read_plan, write_plan
from harness.results.report.fixtures import EPOCH, write_attempt

CELL = "everyday-workflows-scripted.scripted.local.build-revise"


def _write(results: Path, attempt: str, verdict: Verdict, minute: int, **extra: object) -> None:
    folder = write_attempt(
        results, "c", CELL, attempt, verdict, started_at=EPOCH + timedelta(minutes=minute), screenshots=0, phases=()
    )
    path = folder / "attempt.json"
    record = AttemptRecord.model_validate_json(path.read_text())
    path.write_text(record.model_copy(update=extra).model_dump_json())


def test_only_verdicts_about_the_product_are_complete(tmp_path: Path) -> None:
    _write(tmp_path, "1-a", Verdict.INFRASTRUCTURE_FAILED, 1)
    _write(tmp_path, "2-a", Verdict.PASSED, 2, retry_of="1-a")  # the retry completes epoch 1
    _write(tmp_path, "3-a", Verdict.FAILED, 3)
    _write(tmp_path, "4-a", Verdict.INFRASTRUCTURE_FAILED, 4, interrupted=True, reason="interrupted by the user")
    _write(tmp_path, "5-a", Verdict.INFRASTRUCTURE_FAILED, 5)
    (tmp_path / "c" / CELL / "6-a").mkdir()  # killed before its record was written
    assert complete_epochs(tmp_path / "c" / CELL) == 2


def test_epoch_ends_count_a_retry_chain_once(tmp_path: Path) -> None:
    _write(tmp_path, "1-a", Verdict.INFRASTRUCTURE_FAILED, 1)
    _write(tmp_path, "2-a", Verdict.PASSED, 2, retry_of="1-a")
    records = [AttemptRecord.model_validate_json(p.read_text()) for p in tmp_path.glob("c/*/*/attempt.json")]
    assert [end.attempt for end in epoch_ends(records)] == ["2-a"]


def test_the_plan_round_trips(tmp_path: Path) -> None:
    settings = RunSettings(cells=(CELL,), campaign="c", results=tmp_path, attempts=3, product_defect="message-lost")
    write_plan(settings)
    assert read_plan(tmp_path, "c") == settings


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--resume", "nowhere"], "no campaign nowhere"),
        (["--resume", "c", "--id", "build-revise"], "name no selection"),
        (["--resume", "../up"], "--resume '../up'"),
        (["--resume", "empty"], "has no campaign.json"),
    ],
)
def test_a_resume_that_cannot_be_is_one_line(
    tmp_path: Path, args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["run", "--results", str(tmp_path), *args]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and says in error


def test_what_a_resume_replaced_is_judged_no_more(tmp_path: Path) -> None:
    from harness.results.epochs import counted_ends
    from harness.running.campaign import exit_status
    from harness.running.selection import select

    _write(tmp_path, "1-a", Verdict.PASSED, 1)
    _write(tmp_path, "2-a", Verdict.INFRASTRUCTURE_FAILED, 2, interrupted=True)
    _write(tmp_path, "3-a", Verdict.INFRASTRUCTURE_FAILED, 3)
    records = [AttemptRecord.model_validate_json(p.read_text()) for p in tmp_path.glob("c/*/*/attempt.json")]
    cell = select(ids=(CELL,))
    # Asked for two: one complete, topped up by the infrastructure failure (never the interruption).
    assert [end.attempt for end in counted_ends(epoch_ends(records), 2)] == ["1-a", "3-a"]
    assert exit_status(records, cell, epochs=2) == 1
    _write(tmp_path, "4-a", Verdict.PASSED, 4)  # the resume played the missing attempt again
    records = [AttemptRecord.model_validate_json(p.read_text()) for p in tmp_path.glob("c/*/*/attempt.json")]
    assert [end.attempt for end in counted_ends(epoch_ends(records), 2)] == ["1-a", "4-a"]
    assert exit_status(records, cell, epochs=2) == 0
