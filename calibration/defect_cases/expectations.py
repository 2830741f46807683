"""Every expectation a story waits on (harness/running/expectations.py) can fail: a defect for each."""

from __future__ import annotations

from calibration.defect_case import DefectCase

CASES: tuple[DefectCase, ...] = (
    DefectCase(
        defect="new-task-lands-on-list",
        case="build-revise",
        expected_check="expect.task-page-shown",
        why="the task is created, but the form lands on the task list and the task's page never shows",
    ),
    DefectCase(
        defect="child-link-opens-parent",
        case="delegate-feedback",
        expected_check="expect.child-task-page-shown",
        why="the lead delegated; following the child's link on the parent's page opens the parent again",
    ),
    DefectCase(
        defect="ended-run-still-active",
        case="build-revise",
        expected_check="expect.task-settled",
        why="the build is done and nothing runs, but the task still names its run active; settles never",
    ),
    DefectCase(
        defect="run-end-keeps-task-in-progress",
        case="service-decline",
        expected_check="stall.task-never-woken",
        why="after the decline the agent's run ends, but its task stays in progress; the shortest story to wait it out",
        deadline_s=45,
    ),
    DefectCase(
        defect="thread-hides-newest-message",
        case="build-revise",
        expected_check="expect.message-shown",
        why="the revision request is stored, but the thread never shows it",
    ),
    DefectCase(
        defect="message-stored-crlf",
        case="build-revise",
        expected_check="expect.message-stored",
        why="the page shows the revision request as typed; the product's record of it has other line breaks",
    ),
    DefectCase(
        defect="download-link-broken",
        case="build-revise",
        expected_check="expect.delivery-downloadable",
        why="the delivery is listed, but its download link on the page answers 404",
    ),
    DefectCase(
        defect="deliveries-not-listed",
        case="build-revise",
        expected_check="delivery.build",
        why="the agent delivered, but the task lists no delivery to download",
    ),
    DefectCase(
        defect="stop-end-not-recorded",
        case="stop-redirect",
        expected_check="expect.run-ended-after-stop",
        also_expected=("lifecycle.settled",),
        why="Stop kills the runner, but the run stays recorded running",
    ),
    DefectCase(
        defect="stop-result-hidden",
        case="stop-redirect",
        expected_check="expect.stop-result-shown",
        why="the run is cancelled and its processes are gone, but the page never says so",
    ),
    DefectCase(
        defect="ask-first-not-enforced",
        case="service-approve",
        expected_check="expect.decision-requested",
        why="the protected action runs at once and the agent finishes: nobody was asked",
    ),
    DefectCase(
        defect="decision-not-saved",
        case="service-decline",
        expected_check="expect.decision-saved",
        why="Decline is clicked and answered, but the request stays pending",
    ),
    DefectCase(
        defect="model-call-admission-skipped",
        case="build-revise",
        cell="everyday-workflows-replay.replay-codex.local.build-revise",
        expected_check="metering.calls-metered",
        why="the real CLI's model calls are answered by the replay, but the product records none of them",
    ),
    DefectCase(
        defect="finished-task-runs-again",
        case="build-revise",
        expected_check="lifecycle.runs-have-a-cause",
        why="the build's task, once Done, is run again under the build's own assignment: a run nobody asked for,"
        " which every other check lets through",
        alone=True,
    ),
)
