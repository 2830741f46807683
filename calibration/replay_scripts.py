"""Replay calibration: real agent CLIs playing misbehaving replay scripts must be caught.

The replay cells prove the live path with a well-behaved "model"; these rows
prove the harness would notice a misbehaving one, on the intended evidence:
a late requirement ignored fails the oracle on the teammate's final ZIP, and
an environment dumped into the delivery fails the attempt in the secret scan
(the metering proxy's key and the run's token are in that environment; the
provider key never is). The budget stop and the deadline are proven on the
product by tests/testbed/test_cli_agents.py.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from pydantic import BaseModel

from calibration.runner import Row
from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict

SECRET_SCAN = "secret scan"


class ReplayCase(BaseModel):
    case: str
    profile: str
    script: str
    expected: str  # a check id, or SECRET_SCAN

    @property
    def execution_id(self) -> str:
        return f"everyday-workflows-replay.{self.profile}.local.{self.case}"


REPLAY_CASES: tuple[ReplayCase, ...] = (
    ReplayCase(
        case="delegate-feedback", profile="replay-codex", script="story-ignores-late-message", expected="oracle.child"
    ),
    ReplayCase(case="build-revise", profile="replay-codex", script="story-environment-dump", expected=SECRET_SCAN),
    ReplayCase(case="build-revise", profile="replay-claude", script="story-environment-dump", expected=SECRET_SCAN),
)


def run_replay_case(case: ReplayCase, results: Path) -> AttemptRecord | None:
    campaign = f"calibration-{case.profile}-{case.case}-{case.script}"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "run",
            "--id",
            case.execution_id,
            "--results",
            str(results),
            "--campaign",
            campaign,
            "--replay-script",
            case.script,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    records = sorted((results / campaign).glob("*/*/attempt.json"))
    return AttemptRecord.model_validate_json(records[-1].read_text()) if records else None


def row_for(case: ReplayCase, record: AttemptRecord | None) -> Row:
    label = f"{case.profile}/{case.case}/{case.script}"
    expected = f"fail {case.expected}"
    if record is None:
        return Row(
            suite="replay",
            delivery=label,
            mode="-",
            expected=expected,
            got="no attempt",
            deciding="-",
            detail="the run left no attempt.json",
            ok=False,
        )
    failed = [check.id for check in record.checks if not check.passed]
    if case.expected == SECRET_SCAN:
        caught = record.reason.startswith("secret found in evidence")
        deciding = SECRET_SCAN if caught else (failed[0] if failed else "-")
    else:
        caught = case.expected in failed
        deciding = case.expected if caught else (failed[0] if failed else "-")
    return Row(
        suite="replay",
        delivery=label,
        mode="-",
        expected=expected,
        got=record.verdict.value,
        deciding=deciding,
        detail=record.reason[:300],
        ok=record.verdict is Verdict.FAILED and caught,
    )


def run_replay_suite() -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="everyday-calibration-replay-") as folder:
        return [row_for(case, run_replay_case(case, Path(folder))) for case in REPLAY_CASES]
