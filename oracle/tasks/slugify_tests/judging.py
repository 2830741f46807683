"""The slugify-tests plan and verdict: which implementations the collector runs the suite against, and what that means.

The plan carries only what the collector must execute: the implementations'
sources in a fixed order (the reference first) and the limits, never their
names or what is expected of them. Names and verdicts stay on the host, so
a suite that read the plan would learn nothing it could be graded by
(besides being refused and caught by tests.hands-off).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from oracle.checks import SANDBOX_COMPLETED, Check
from oracle.tasks.slugify_tests import checks as ids
from oracle.tasks.slugify_tests.checks import check
from oracle.tasks.slugify_tests.contract import TEST_MODULE
from oracle.tasks.slugify_tests.faults import FAULTS, REFERENCE_IMPLEMENTATION

REFERENCE = "reference"
VIOLATIONS_KEPT = 20
"""Refused attempts recorded per run (the rest are refused and counted, not listed)."""


class SuiteResult(BaseModel):
    """What unittest's own result said, as the child reported it over the audit channel."""

    run: int = 0
    failures: int = 0
    errors: int = 0
    skipped: int = 0
    unexpected_successes: int = 0
    ok: bool = False
    violations: int = 0


class SuiteRun(BaseModel):
    """One run of the delivered suite against one implementation, as the collector saw it."""

    started: bool = True
    exit: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    output_tail: str = ""
    result: SuiteResult | None = None
    violations: list[str] = []
    channel_tampered: bool = False
    error: str | None = None


class Observations(BaseModel):
    runs: list[SuiteRun]


def implementations() -> list[tuple[str, str]]:
    """(name, source) of every implementation, in the order the collector runs them: the reference first."""
    return [(REFERENCE, REFERENCE_IMPLEMENTATION), *((f.name, f.source) for f in FAULTS)]


def collector_plan(project: Path) -> dict[str, Any]:
    """The task's part of the JSON plan: sources in order and limits; no names, no expectations."""
    del project  # the engine adds where the delivery is inside the container
    return {
        "python": "python3",
        "test_module": TEST_MODULE,
        "implementations": [source for _, source in implementations()],
        "output_limit": 16 * 1024,
        "channel_limit": 64 * 1024,
        "violation_limit": VIOLATIONS_KEPT,
    }


def _outcome(run: SuiteRun) -> str:
    """One line: how the suite ended against one implementation."""
    if not run.started:
        return "not run (an earlier run never finished)"
    if run.error:
        return run.error
    if run.timed_out:
        return "did not finish within the per-run time limit"
    counts = run.result
    if counts is None:
        return f"exit {run.exit} without unittest's result (the suite ended the process itself or crashed on import)"
    verdict = "OK" if counts.ok else f"FAILED (failures={counts.failures}, errors={counts.errors})"
    return f"ran {counts.run} tests: {verdict}, exit {run.exit}"


def _first_problem(run: SuiteRun) -> str:
    """The first failing test named in unittest's output, for the reference's detail."""
    for line in run.output_tail.splitlines():
        if line.startswith(("FAIL: ", "ERROR: ")):
            return "; first: " + line[:120]
    return ""


def _completed(named: list[tuple[str, SuiteRun]]) -> Check:
    hung = [name for name, run in named if run.timed_out]
    if hung:
        skipped = sum(1 for _, run in named if not run.started)
        return check(
            SANDBOX_COMPLETED,
            False,
            f"the suite did not finish against {hung[0]} within the per-run time limit; {skipped} run(s) not started",
        )
    broken = [(name, run.error) for name, run in named if run.error]
    if broken:
        return check(SANDBOX_COMPLETED, False, f"the suite could not be run against {broken[0][0]}: {broken[0][1]}")
    return check(SANDBOX_COMPLETED, True, f"the suite ran against all {len(named)} implementations")


def _hands_off(named: list[tuple[str, SuiteRun]]) -> Check:
    caught = [(name, seen) for name, run in named for seen in run.violations]
    tampered = [name for name, run in named if run.channel_tampered]
    if caught:
        total = sum(max(len(run.violations), run.result.violations if run.result else 0) for _, run in named)
        name, seen = caught[0]
        return check(ids.TESTS_HANDS_OFF, False, f"refused {seen} (against {name}); {total} refused attempt(s) in all")
    if tampered:
        return check(
            ids.TESTS_HANDS_OFF, False, f"the suite wrote into the oracle's audit channel (against {tampered[0]})"
        )
    return check(ids.TESTS_HANDS_OFF, True, "no file outside its folder, socket or process was touched")


def _pass_reference(run: SuiteRun) -> Check:
    counts = run.result
    passed = run.exit == 0 and counts is not None and counts.ok and counts.run > 0
    detail = _outcome(run)
    if counts is not None and counts.run == 0:
        detail += " (no tests ran: the module must be named test_slugify.py and define unittest test cases)"
    return check(ids.TESTS_PASS_REFERENCE, passed, detail + ("" if passed else _first_problem(run)))


def _catch_faults(named: list[tuple[str, SuiteRun]]) -> Check:
    faulty = named[1:]
    missed = [name for name, run in faulty if not (run.started and run.exit not in (0, None))]
    caught = len(faulty) - len(missed)
    detail = f"{caught} of {len(faulty)} faulty implementations caught"
    return check(ids.TESTS_CATCH_FAULTS, not missed, detail + (f"; missed: {', '.join(missed)}" if missed else ""))


def _outcomes(named: list[tuple[str, SuiteRun]]) -> list[Check]:
    """Diagnostics: the suite's outcome against each implementation (passed = what a good suite does there)."""
    found = []
    for name, run in named:
        wanted = run.exit == 0 if name == REFERENCE else (run.started and run.exit not in (0, None))
        check_id = ids.OUTCOME_REFERENCE if name == REFERENCE else ids.outcome_id(name)
        found.append(check(check_id, bool(wanted), _outcome(run)))
    return found


def judge(observed: Observations) -> list[Check]:
    """Every check of a run: completion, hands-off, the reference, the faults, and one outcome per implementation."""
    names = [name for name, _ in implementations()]
    if len(observed.runs) != len(names):
        return [check(SANDBOX_COMPLETED, False, f"{len(observed.runs)} runs observed for {len(names)} implementations")]
    named = list(zip(names, observed.runs, strict=True))
    return [
        _completed(named),
        _hands_off(named),
        _pass_reference(named[0][1]),
        _catch_faults(named),
        *_outcomes(named),
    ]
