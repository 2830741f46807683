"""The provider stories end to end: each scripted cell through the real `harness run`, passing with the
evidence the issue asks for (each choice's screenshot, the persisted interactions, the gateway's counts and the
restart snapshots), and the restart left unexercised when the question is no longer pending."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from calibration.personas import PERSONA_CASES
from calibration.product_defects import DEFECT_CASES
from harness.core import registry
from harness.core.deadline import Deadline
from harness.core.records import AttemptRecord
from harness.core.settings import RunSettings
from harness.core.verdicts import Unexercised, Verdict
from harness.decisions.contract import CONTACT_TASK_TITLE, HUBSPOT, contact_task
from harness.decisions.providers import require_question, restart_with_question_pending
from harness.evidence.recorder import EvidenceRecorder
from harness.products.base import ProvidersApi
from harness.running.attempt import AttemptContext
from harness.running.journey import journey_factory
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import harness_run

QUESTION = ["provider.question-options", "provider.question-discloses", "provider.question-survived-restart"]
RESTART = ["restart-sigterm-before", "restart-sigterm-after", "restart-sigterm-final"]
STORIES = {
    "provider-native": (
        ["decision.request-matches-story", "decision.saved-once", "connection.none-created", "provider.no-question"],
        ["interactions", "interactions-before-decision", "intent-outcome", "decline-grade"],
        "declined",
    ),
    "provider-decline": (
        [*QUESTION, "restart.controller-replaced", "decision.saved-once", "provider.one-question"]
        + ["connection.none-created", "decision.explanation-after-decline", "provider.no-made-up-result"],
        ["interactions", "provider-question", "provider-outcome", "decline-grade", *RESTART],
        "chose-none",
    ),
    "provider-second": (
        [*QUESTION, "restart.controller-replaced", "decision.saved-once", "provider.one-question"]
        + ["gateway.no-call-before-choice", "gateway.one-call-after-choice", "gateway.reply-has-marker"]
        + ["provider.no-duplicate-connection", "credential.not-in-api", "credential.not-rendered"],
        ["interactions", "provider-question", "provider-outcome", "gateway-calls-before-choice", *RESTART],
        "chose-arcade",
    ),
}


@marked(*PLAYS_CELLS)
@pytest.mark.parametrize("case", sorted(STORIES))
def test_provider_story_passes_and_keeps_its_evidence(case: str, tmp_path: Path) -> None:
    done = harness_run(tmp_path, "--id", case)
    [path] = sorted(tmp_path.glob("test/*/*/attempt.json"))
    record = AttemptRecord.model_validate_json(path.read_text())
    assert done.returncode == 0 and record.verdict is Verdict.PASSED, f"{record.reason}\n{done.stdout[-2000:]}"
    checks, snapshots, choice = STORIES[case]
    assert set(checks) <= {check.id for check in record.checks if check.passed}
    assert not [check.id for check in record.checks if not check.passed]
    package = path.parent
    for name in snapshots:
        assert (package / "snapshots" / f"{name}.json").is_file(), name
    names = [Path(shot).name for shot in record.screenshots]
    assert any(name.endswith(f"{choice}.png") for name in names)
    assert record.accounting.run_count == 2  # the question, then the run the answer started
    if case == "provider-native":
        return
    moments = [json.loads((package / "snapshots" / f"{name}.json").read_text()) for name in RESTART]
    assert [m["moment"] for m in moments] == ["before", "after", "final"]
    assert moments[0]["controller_instance_id"] != moments[1]["controller_instance_id"]
    assert moments[0]["stored"]["status"] == moments[1]["stored"]["status"] == "pending"
    assert moments[2]["stored"]["choice"] == ("None" if case == "provider-decline" else "Arcade")
    assert any(name.endswith("after-sigterm-restart.png") for name in names)
    if case == "provider-second":
        lines = (package / "snapshots" / "gateway-capture.jsonl").read_text().splitlines()
        calls = [e for e in map(json.loads, lines) if e["tool"] == "hubspot_look_up_contact"]
        outcome = json.loads((package / "snapshots" / "provider-outcome.json").read_text())
        assert [e["marker"] for e in calls] == [outcome["gateway"]["marker"]]
        assert outcome["gateway"]["calls_before_choice"] == 0


def test_a_question_answered_before_the_restart_leaves_the_attempt_unexercised(browser: Any, tmp_path: Path) -> None:
    """The restart step must land while the question is pending; a question answered first leaves nothing to test."""
    cell = next(c for c in registry.catalog().cells() if c.execution_id.endswith("scripted.local.provider-decline"))
    context = AttemptContext(
        cell=cell,
        settings=RunSettings(campaign="t", results=tmp_path),
        recorder=EvidenceRecorder(tmp_path / "attempt"),
        deadline=Deadline(120),
    )
    with journey_factory(browser)(context) as journey:
        task = journey.create_task(CONTACT_TASK_TITLE, contact_task(HUBSPOT))
        question, shown = require_question(journey, task, HUBSPOT)
        assert cast(ProvidersApi, journey.api).choose(question.id, "None").status_code == 200
        instance_before = journey.api.controller().instance_id
        with pytest.raises(Unexercised, match="no longer pending"):
            restart_with_question_pending(journey, question, shown)
        assert journey.api.controller().instance_id == instance_before  # nothing was restarted


def test_every_provider_miss_the_issue_names_is_calibrated_on_its_check() -> None:
    """Routing undisclosed, wrong order or no None, an early gateway call, the question twice, a made-up read,
    the marker missing, a second connection, the question lost across the restart: each has its case."""
    defects = {(c.case, c.defect): c.expected_check for c in DEFECT_CASES}
    assert defects[("provider-decline", "provider-no-disclosure")] == "provider.question-discloses"
    assert defects[("provider-decline", "provider-options-reordered")] == "provider.question-options"
    assert defects[("provider-decline", "provider-none-missing")] == "provider.question-options"
    assert defects[("provider-second", "gateway-called-before-choice")] == "gateway.no-call-before-choice"
    assert defects[("provider-decline", "provider-asked-again")] == "provider.one-question"
    assert defects[("provider-second", "provider-choice-duplicates-connection")] == "provider.no-duplicate-connection"
    assert defects[("provider-decline", "question-lost-on-restart")] == "provider.question-survived-restart"
    assert defects[("provider-native", "native-falls-back-to-aggregators")] == "provider.no-question"
    personas = {(c.case, c.persona): c.expected_check for c in PERSONA_CASES}
    assert personas[("provider-decline", "makes-up-contact")] == "provider.no-made-up-result"
    assert personas[("provider-second", "forgets-contact-marker")] == "gateway.reply-has-marker"
    assert personas[("provider-second", "makes-up-contact")] == "gateway.one-call-after-choice"
    for case in STORIES:
        assert personas[(case, "default")] is None
