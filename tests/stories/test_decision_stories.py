"""The decision stories end to end: the scripted cells through the real `harness run`, and the credential
searched for in everything an attempt leaves (package, browser trace, the agent's environment)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from calibration.personas import PERSONA_CASES
from calibration.product_defects import DEFECT_CASES
from harness.core import registry
from harness.core.deadline import Deadline
from harness.core.settings import RunSettings
from harness.decisions.contract import DOCUMENT_TASK_TITLE, SERVICE_NAME, document_task
from harness.decisions.service import decide, install_document_service, require_pending_request, require_service_outcome
from harness.evidence.recorder import EvidenceRecorder
from harness.evidence.secret_scan import scan_tree
from harness.running.attempt import AttemptContext
from harness.running.journey_factory import journey_factory
from tests.needs import PLAYS_CELLS, marked
from tests.stories import shared_plays
from tests.stories.harness_runs import passed_by_case

COMMON = [
    "decision.one-pending-request",
    "decision.request-matches-story",
    "decision.saved-once",
    "decision.no-repeated-request",
    "service.no-call-before-decision",
    "credential.not-in-api",
    "credential.not-rendered",
    "lifecycle.tasks-done",
]
STORIES = {
    "service-approve": (
        COMMON + ["service.one-call-after-approval", "service.reply-shows-returned-document"],
        ["decision", "interactions-before-decision", "service-outcome"],
        "approved",
    ),
    "service-decline": (
        COMMON
        + ["service.no-call-after-decline", "decision.explanation-after-decline", "decision.declined-stays-declined"],
        ["decision", "interactions-before-decision", "service-outcome", "decline-grade"],
        "declined",
    ),
    "connection-decline": (
        [c for c in COMMON if not c.startswith(("service.", "credential."))]
        + ["connection.none-at-start", "connection.none-created", "decision.explanation-after-decline"],
        ["decision", "interactions-before-decision", "intent-outcome", "decline-grade", "connections-before"],
        "declined",
    ),
    "agentmail-setup": (
        [c for c in COMMON if not c.startswith(("service.", "credential."))]
        + ["email.card-durable", "email.one-password-field", "email.key-link", "email.no-access-selectors-or-modal"]
        + ["connection.none-created"],
        ["decision", "interactions-before-decision", "email-card", "email-outcome", "connections-before"],
        "declined",
    ),
}


def test_every_check_of_a_decision_story_has_a_calibration_case_that_fails_on_it() -> None:
    """A good agent passes each check above; a product defect or a persona must show each one failing too
    (the premise ``connection.none-at-start`` included: a connection the product made itself is its failure)."""
    calibrated = {c.expected_check for c in DEFECT_CASES} | {c.expected_check for c in PERSONA_CASES}
    checks = {check for listed, _, _ in STORIES.values() for check in listed}
    assert sorted(checks - calibrated) == [], "checks of a decision story that no calibration case fails"


@marked(*PLAYS_CELLS)
def test_every_decision_story_passes_and_keeps_its_decision_evidence(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Played once in the session (tests/stories/shared_plays.py): the Ray engine's test compares service-decline's
    package with its own."""
    assert shared_plays.DECISION_STORIES == sorted(STORIES)
    played = shared_plays.decision_stories(tmp_path_factory).every_cell_passed()
    for case, (record, package) in passed_by_case(played.results, len(STORIES), played.stdout).items():
        checks, snapshots, screenshot = STORIES[case]
        assert set(checks) <= {check.id for check in record.checks if check.passed}, case
        for name in snapshots:
            assert (package / "snapshots" / f"{name}.json").is_file(), f"{case}: {name}"
        if case.startswith("service-"):
            lines = (package / "snapshots" / "service-capture.jsonl").read_text().splitlines()
            accepted = [
                e for e in map(json.loads, lines) if e["tool"] == "create_document" and e["outcome"] == "accepted"
            ]
            assert len(accepted) == (1 if case == "service-approve" else 0), case
        names = [Path(shot).name for shot in record.screenshots]
        assert any(name.endswith("decision-requested.png") for name in names), case
        assert any(name.endswith(f"{screenshot}.png") for name in names), case


def test_the_credential_is_in_no_package_trace_or_agent_environment(browser: Any, tmp_path: Path) -> None:
    cell = next(c for c in registry.catalog().cells() if c.execution_id.endswith("scripted.local.service-approve"))
    folder = tmp_path / "attempt"
    context = AttemptContext(
        cell=cell,
        settings=RunSettings(campaign="t", results=tmp_path),
        recorder=EvidenceRecorder(folder),
        deadline=Deadline(120),
    )
    with journey_factory(browser)(context) as journey:
        installed = install_document_service(journey)
        task = journey.create_task(DOCUMENT_TASK_TITLE, document_task("Credential hunt", SERVICE_NAME))
        request = require_pending_request(journey, task, installed)
        waiting = journey.api.run(request.run_id)
        assert waiting.active and waiting.identity.pid  # the agent's runner, alive while it waits
        environment = Path(f"/proc/{waiting.identity.pid}/environ").read_bytes()
        command_line = Path(f"/proc/{waiting.identity.pid}/cmdline").read_bytes()
        decision = decide(journey, installed, request, approve=True)
        require_service_outcome(journey, task, installed, decision)
        journey.conclude()
        secret = installed.fixture.credential
        assert not [c.id for c in journey.evidence.checks if not c.passed]
    assert secret.encode() not in environment and secret.encode() not in command_line
    assert (folder / "trace.zip").is_file() and list((folder / "logs").glob("*.log"))
    assert scan_tree(folder, {"service credential": secret}) == []


@marked(*PLAYS_CELLS, "agent_cli")
def test_real_agent_clis_decide_through_the_products_tools(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The real CLIs (against the model replay) ask through the product's MCP tools and wait for the person. Played
    once in the session, recorded (tests/stories/shared_plays.py: nothing may outlive the play); the cassette tests
    replay two of its cells."""
    played = shared_plays.decisions_recorded(tmp_path_factory)
    clis = shared_plays.DECISION_CLIS
    for case, (record, _) in passed_by_case(played.results, len(clis), played.stdout).items():
        assert set(STORIES[case][0]) <= {check.id for check in record.checks if check.passed}, case
        assert record.provenance.agent_clis and clis[case] in record.provenance.agent_clis
    played.every_cell_passed()
