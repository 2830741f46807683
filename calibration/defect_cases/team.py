"""The team: hires the board decides on, and an agent's controls."""

from __future__ import annotations

from calibration.defect_case import DefectCase

CASES: tuple[DefectCase, ...] = (
    DefectCase(
        defect="hire-skips-approval",
        case="hire-approval",
        expected_check="approval.hire-waits",
        why="the company requires approval, yet the hire is active at once and nothing waits in Approvals",
    ),
    DefectCase(
        defect="approval-creates-no-agent",
        case="hire-approval",
        expected_check="approval.hire-approved",
        why="the person approves the hire; it is recorded approved, but no Morgan joins the team",
    ),
    DefectCase(
        defect="approvals-not-listed",
        case="hire-approval",
        expected_check="expect.approval-shown",
        why="the hire waits for the board, but Approvals lists nothing to approve",
    ),
    DefectCase(
        defect="rejected-hire-created",
        case="hire-rejected",
        expected_check="approval.rejected-nothing-created",
        why="the person rejects the hire; it is recorded rejected, and Morgan is created anyway",
    ),
    DefectCase(
        defect="pause-leaves-run-going",
        case="agent-controls",
        expected_check="controls.pause-settles",
        why="the agent shows paused, but its run in progress goes on instead of being cancelled",
    ),
    DefectCase(
        defect="paused-agent-starts",
        case="agent-controls",
        expected_check="controls.nothing-starts-while-paused",
        why="the message left for the paused agent starts a run at once",
    ),
    DefectCase(
        defect="resumed-agent-idle",
        case="agent-controls",
        expected_check="controls.resume-continues",
        why="the resumed agent shows active, but its waiting work never gets a run",
    ),
    DefectCase(
        defect="terminated-agent-assignable",
        case="agent-controls",
        expected_check="controls.terminated-takes-no-work",
        why="a task for the terminated agent is accepted instead of refused",
    ),
    DefectCase(
        defect="agent-controls-ignored",
        case="agent-controls",
        expected_check="expect.agent-controlled",
        why="pressing Pause on the agent's page does nothing: the page never shows it paused",
    ),
    DefectCase(
        defect="task-title-cut-short",
        case="build-revise",
        expected_check="readback.stored",
        also_expected=("readback.shown",),
        why="the task's title is stored (and so shown) cut short: only reading back what the person typed sees it",
        alone=True,
    ),
    DefectCase(
        defect="team-list-shows-default-role",
        case="hire-reuse",
        expected_check="readback.shown",
        why="the team list shows Morgan as an engineer, hired as QA; the API has the role right",
        alone=True,
    ),
    DefectCase(
        defect="decision-allows-connection",
        case="service-approve",
        expected_check="readback.untouched",
        also_expected=("readback.stored",),
        why="approving one action also switches the connection to Allow: a setting the decision must leave alone"
        " (read back at the end, the connection no longer has the policy it was set up with)",
        alone=True,
    ),
)
