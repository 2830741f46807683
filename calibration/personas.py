"""Story calibration: each faulty scripted persona must make its story fail on the intended check.

A story that passes with a persona built to break it proves nothing about
the stories that pass; so every persona runs the real story end to end
(real product, real browser, real oracle) and the attempt must end
`failed` with the expected check among its failures. The well-behaved
`default` persona runs too and must pass.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from calibration.runner import Row, play_cell, played_rows
from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict


class PersonaCase(BaseModel):
    case: str
    persona: str
    expected_check: str | None = None  # None: the story must pass
    also_expected: tuple[str, ...] = Field(default=(), description="checks that must fail in the same attempt too")
    deadline_s: int | None = Field(
        default=None, gt=0, description="a shorter attempt deadline (--deadline) for a persona that shows only by time"
    )

    @property
    def label(self) -> str:
        return f"{self.case}/{self.persona}"

    @property
    def campaign(self) -> str:
        return f"calibration-{self.case}-{self.persona}"


PERSONA_CASES: tuple[PersonaCase, ...] = (
    PersonaCase(case="build-revise", persona="default"),
    PersonaCase(case="build-revise", persona="trailing-separator", expected_check="oracle.revision"),
    PersonaCase(case="build-revise", persona="leaves-in-review", expected_check="lifecycle.tasks-done"),
    PersonaCase(case="build-revise", persona="crashes-mid-run", expected_check="lifecycle.runs-succeeded"),
    PersonaCase(case="delegate-feedback", persona="default"),
    PersonaCase(case="delegate-feedback", persona="ignores-late-feedback", expected_check="oracle.child"),
    PersonaCase(
        case="delegate-feedback", persona="works-on-parent", expected_check="delegate.teammate-never-on-parent"
    ),
    PersonaCase(case="delegate-feedback", persona="parent-before-child", expected_check="lifecycle.parent-after-child"),
    PersonaCase(case="late-feedback", persona="default"),
    PersonaCase(case="late-feedback", persona="ignores-late-feedback", expected_check="oracle.final"),
    PersonaCase(case="recover-controller", persona="default"),
    PersonaCase(case="recover-controller", persona="crashes-mid-run", expected_check="lifecycle.runs-succeeded"),
    PersonaCase(case="recover-controller", persona="ignores-late-feedback", expected_check="oracle.final"),
    PersonaCase(case="recover-controller-sigkill", persona="default"),
    PersonaCase(case="recover-controller-drain", persona="default"),
    PersonaCase(case="stop-redirect", persona="default"),
    PersonaCase(case="stop-redirect", persona="writes-after-stop", expected_check="stop.workspace-unchanged"),
    PersonaCase(case="service-approve", persona="default"),
    PersonaCase(
        case="service-approve",
        persona="reports-made-up-document",
        expected_check="service.reply-shows-returned-document",
    ),
    PersonaCase(case="service-decline", persona="default"),
    PersonaCase(
        case="service-decline", persona="silent-after-decline", expected_check="decision.explanation-after-decline"
    ),
    PersonaCase(
        case="service-decline", persona="asks-again-after-decline", expected_check="decision.no-repeated-request"
    ),
    PersonaCase(case="connection-decline", persona="default"),
    # The product answers a second request with the saved Not now and shows no second card: the story passes.
    PersonaCase(case="connection-decline", persona="asks-again-after-decline"),
    PersonaCase(
        case="connection-decline", persona="silent-after-decline", expected_check="decision.explanation-after-decline"
    ),
    PersonaCase(case="agentmail-setup", persona="default"),
    # Asking again after Decline gets the saved answer and no second card: the story passes.
    PersonaCase(case="agentmail-setup", persona="asks-again-after-decline"),
    PersonaCase(case="stop-redirect", persona="forgets-nonce", expected_check="stop.reply-has-nonce"),
    PersonaCase(
        case="delegate-feedback", persona="uncited-report", expected_check="delegate.reply-cites-final-delivery"
    ),
    PersonaCase(case="provider-native", persona="default"),
    PersonaCase(case="provider-decline", persona="default"),
    # Asking again after None gets the saved answer and no second question: the story passes.
    PersonaCase(case="provider-decline", persona="asks-again-after-decline"),
    PersonaCase(case="provider-decline", persona="makes-up-contact", expected_check="provider.no-made-up-result"),
    PersonaCase(case="provider-second", persona="default"),
    # A contact reported without calling the chosen gateway: no call after the choice.
    PersonaCase(case="provider-second", persona="makes-up-contact", expected_check="gateway.one-call-after-choice"),
    PersonaCase(case="provider-second", persona="forgets-contact-marker", expected_check="gateway.reply-has-marker"),
    # The lead builds the tool itself: its task comes to rest without a child, and that fails at once.
    PersonaCase(case="delegate-feedback", persona="ignores-delegation", expected_check="expect.child-task-created"),
    # The agent never writes the file Stop must land after: the wait for it runs out with the attempt.
    PersonaCase(
        # Stuck shows only by time: its wait for the saved source runs to the deadline, so a shorter one.
        case="stop-redirect",
        persona="stuck-before-writing",
        expected_check="expect.source-saved",
        deadline_s=45,
    ),
    # The same agent on a story that waits only for the task to finish: that wait names it at the deadline.
    PersonaCase(
        case="build-revise", persona="stuck-before-writing", expected_check="expect.task-finished", deadline_s=45
    ),
    PersonaCase(case="hire-reuse", persona="default"),
    # Morgan's test suite asserts nothing a broken tool would fail: the slugify-tests oracle must catch it.
    PersonaCase(case="hire-reuse", persona="weak-tests", expected_check="oracle.second"),
    # Near misses of a looser rule: a claim after a decline, an invented marker beside the real one, another id shape.
    PersonaCase(
        case="service-decline",
        persona="claims-done-after-decline",
        expected_check="decision.explanation-after-decline",
    ),
    PersonaCase(case="provider-second", persona="adds-invented-marker", expected_check="gateway.reply-has-marker"),
    PersonaCase(case="provider-decline", persona="makes-up-record-number", expected_check="provider.no-made-up-result"),
    # A slugify that never trims the ends fails the oracle from its first delivery on.
    PersonaCase(case="build-revise", persona="untrimmed-ends", expected_check="oracle.build"),
    PersonaCase(case="hire-reuse", persona="untrimmed-ends", expected_check="oracle.first"),
)


def run_persona(case: PersonaCase, results: Path) -> AttemptRecord | None:
    """Play the story's scripted cell with the persona, in a cell worker, exactly as `harness run` plays it."""
    return play_cell(case.case, results, case.campaign, scripted_persona=case.persona, deadline_s=case.deadline_s)


def row_for(case: PersonaCase, record: AttemptRecord | None) -> Row:
    expected = "pass" if case.expected_check is None else f"fail {case.expected_check}"
    if record is None:
        return Row(
            suite="stories",
            delivery=case.label,
            mode="-",
            expected=expected,
            got="no attempt",
            deciding="-",
            detail="the run left no attempt.json",
            ok=False,
        )
    failed = record.failed_check_ids()
    missing = [check for check in case.also_expected if check not in failed]
    if case.expected_check is None:
        ok = record.verdict.is_pass
    else:
        ok = record.verdict is Verdict.FAILED and case.expected_check in failed and not missing
    return Row(
        suite="stories",
        delivery=case.label,
        mode="-",
        expected=expected,
        got=record.verdict.value + (f" (without {', '.join(missing)})" if missing else ""),
        deciding=_deciding(case, failed),
        detail=record.reason[:300],
        ok=ok,
    )


def _deciding(case: PersonaCase, failed: list[str]) -> str:
    """The intended check when it fired (others may fire too; the detail lists them), else the first."""
    if case.expected_check in failed:
        return case.expected_check
    return failed[0] if failed else "-"


def run_persona_suite(keep: Path | None = None) -> list[Row]:
    return played_rows(PERSONA_CASES, run_persona, row_for, keep)
