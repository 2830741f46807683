"""Replay calibration: real agent CLIs playing misbehaving replay scripts must be caught.

The replay cells prove the live path with a well-behaved "model"; these rows
prove the harness would notice a misbehaving one, on the intended evidence:
a late requirement ignored fails the oracle on the teammate's final ZIP, and
an environment dumped into the delivery fails the attempt in the secret scan
(the metering proxy's key and the run's token are in that environment; the
provider key never is), found by value: the row names the known secrets
the instance issued that the scan must report, so a scan that only matched
their shape would not pass it. An agent that keeps spending fails
``lifecycle.within-budget`` with nothing past the hard stop reaching the
replay server, and one that never finishes fails ``lifecycle.within-time-limit``
with nothing left running. The last two get a small hard stop and a short
wall-clock limit (run settings), so a row takes seconds, not the defaults' hours.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from calibration.runner import Row, play_cell, played_rows
from harness.agents.issued_secrets import PROXY_KEY_LABEL, RUN_TOKEN_LABEL
from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict

SECRET_SCAN = "secret scan"


class ReplayCase(BaseModel):
    case: str
    profile: str
    script: str
    expected: str  # a check id, or SECRET_SCAN
    # SECRET_SCAN only: kinds the findings must name, the labels of known values the instance issued
    secret_kinds: tuple[str, ...] = ()
    hard_stop_cents: int | None = None
    agent_time_limit_s: float | None = None

    @property
    def label(self) -> str:
        return f"{self.profile}/{self.case}/{self.script}"

    @property
    def execution_id(self) -> str:
        return f"everyday-workflows-replay.{self.profile}.local.{self.case}"

    @property
    def campaign(self) -> str:
        return f"calibration-{self.profile}-{self.case}-{self.script}"


REPLAY_CASES: tuple[ReplayCase, ...] = (
    ReplayCase(
        case="delegate-feedback", profile="replay-codex", script="story-ignores-late-message", expected="oracle.child"
    ),
    # Codex reads its tool server's bearer token from its environment, so its dump holds the run token too.
    ReplayCase(
        case="build-revise",
        profile="replay-codex",
        script="story-environment-dump",
        expected=SECRET_SCAN,
        secret_kinds=(RUN_TOKEN_LABEL, PROXY_KEY_LABEL),
    ),
    ReplayCase(
        case="build-revise",
        profile="replay-claude",
        script="story-environment-dump",
        expected=SECRET_SCAN,
        secret_kinds=(PROXY_KEY_LABEL,),
    ),
    # Each call of over-budget carries 120,000 input tokens (15 simulated cents at gpt-5-codex's list price).
    ReplayCase(
        case="build-revise",
        profile="replay-codex",
        script="over-budget",
        expected="lifecycle.within-budget",
        hard_stop_cents=50,
    ),
    # A hiring cell's hard stop, for the company and the lead, set by the run (--hard-stop-cents) so a few calls reach it.
    ReplayCase(
        case="hire-reuse",
        profile="replay-codex",
        script="over-budget",
        expected="lifecycle.within-budget",
        hard_stop_cents=50,
    ),
    ReplayCase(
        case="build-revise",
        profile="replay-claude",
        script="never-finishes",
        expected="lifecycle.within-time-limit",
        agent_time_limit_s=20,
    ),
)


def run_replay_case(case: ReplayCase, results: Path) -> AttemptRecord | None:
    return play_cell(
        case.execution_id,
        results,
        case.campaign,
        replay_script=case.script,
        hard_stop_cents=case.hard_stop_cents,
        agent_time_limit_s=case.agent_time_limit_s,
    )


def row_for(case: ReplayCase, record: AttemptRecord | None) -> Row:
    expected = f"fail {case.expected}"
    if record is None:
        return Row(
            suite="replay",
            delivery=case.label,
            mode="-",
            expected=expected,
            got="no attempt",
            deciding="-",
            detail="the run left no attempt.json",
            ok=False,
        )
    failed = record.failed_check_ids()
    if case.expected == SECRET_SCAN:
        missing = [kind for kind in case.secret_kinds if f"holds a {kind} " not in record.reason]
        caught = record.reason.startswith("secret found in evidence") and not missing
        deciding = SECRET_SCAN if caught else (failed[0] if failed else "-")
        if missing and record.reason.startswith("secret found in evidence"):
            deciding = f"{SECRET_SCAN}, without {', '.join(missing)}"
    else:
        caught = case.expected in failed
        deciding = case.expected if caught else (failed[0] if failed else "-")
    premise = limit_premise(case, record, failed)
    return Row(
        suite="replay",
        delivery=case.label,
        mode="-",
        expected=expected,
        got=record.verdict.value,
        deciding=deciding,
        detail=(premise or record.reason)[:300],
        ok=record.verdict is Verdict.FAILED and caught and premise is None,
    )


def limit_premise(case: ReplayCase, record: AttemptRecord, failed: list[str]) -> str | None:
    """What a hard limit must also prove beyond its check failing; None when it holds.

    A budget stop that lets calls through, or a time limit that leaves the
    agent running, would fail the check yet still be broken.
    """
    accounting = record.accounting
    if case.expected == "lifecycle.within-budget":
        if accounting.refused_model_calls < 1:
            return "the metering proxy refused no call: the budget stop never fired"
        if accounting.replay_model_calls != accounting.model_calls:
            return (
                f"the replay server answered {accounting.replay_model_calls} model calls but the product metered"
                f" {accounting.model_calls} forwarded: a call got past the hard stop"
            )
    if case.expected == "lifecycle.within-time-limit" and "lifecycle.settled" in failed:
        return "a run was still active after the time limit"
    return None


def run_replay_suite(keep: Path | None = None) -> list[Row]:
    return played_rows(REPLAY_CASES, run_replay_case, row_for, keep)
