"""Product-defect calibration: each defect built into the testbed must make its story fail on the intended check.

Personas prove the stories catch a bad agent; these prove they catch a bad
product. Each case runs the real story end to end (real product with one
defect switched on, real browser, real oracle) as `harness run
--product-defect NAME` plays it, and the attempt must end `failed` with the intended
check among its failures: not `infrastructure_failed`, not `unexercised`,
and not by running out of time (a defect caught only by the attempt deadline
is not caught by a check that names it).

A defect registered in the testbed without a case here fails calibration:
``missing_cases`` is checked before anything runs, and by a test.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, Field

from calibration.runner import Row, play_cell, played_rows
from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from harness.testbed.defects import REGISTRY

# A defect seen only while a run is active gets a slower agent, so the invariants sampled during waits
# (every 0.5 s; a state counts once seen twice in a row, a delivery's bytes are read once, when it
# appears) see it for sure: each step then outlasts a sampling interval.
WINDOW_PACE_S = 0.5
DEADLINE_REASON = re.compile(r"deadline\b.*\bexceeded", re.IGNORECASE)


class DefectCase(BaseModel):
    """One defect, the story that should catch it and the check that must name it."""

    defect: str
    case: str
    expected_check: str
    why: str = ""
    pace_s: float | None = Field(
        default=None, gt=0, description="a slower scripted agent, for a defect visible only while a run is active"
    )
    persona: str | None = Field(
        default=None, description="a scripted persona that reaches the defect (an agent that asks twice, say)"
    )
    deadline_s: int | None = Field(
        default=None, gt=0, description="a shorter attempt deadline (--deadline) for a defect that shows only by time"
    )
    also_expected: tuple[str, ...] = Field(
        default=(),
        description="checks that must fail in the same attempt too: one cell calibrates every check the defect"
        " reaches (a download's sha256 in each phase, say)",
    )
    alone: bool = Field(
        default=False,
        description="no other check may fail (beyond also_expected): the story tells this defect apart from every other",
    )
    cell: str | None = Field(
        default=None,
        description="the full execution id to run instead of the story's scripted cell: a replay cell for a defect"
        " that only a real agent's model calls reach",
    )

    @property
    def label(self) -> str:
        return f"{self.case}/{self.defect}"

    @property
    def campaign(self) -> str:
        return f"calibration-defect-{self.case}-{self.defect}"


CONTAINER_CELL = "everyday-workflows-scripted.scripted.container.{}"

DEFECT_CASES: tuple[DefectCase, ...] = (
    DefectCase(
        defect="sandbox-lease-not-readopted",
        case="recover-controller",
        cell=CONTAINER_CELL.format("recover-controller"),
        expected_check="restart.same-run",
        why="the restarted controller marks the run lost though its sandbox's lease is live",
    ),
    DefectCase(
        defect="sandbox-left-running",
        case="stop-redirect",
        cell=CONTAINER_CELL.format("stop-redirect"),
        expected_check="stop.sandbox-gone",
        why="Stop says the sandbox is gone while the engine still runs its container",
    ),
    DefectCase(
        defect="sandbox-workspace-kept",
        case="build-revise",
        cell=CONTAINER_CELL.format("build-revise"),
        expected_check="sandbox.workspace-returned",
        why="the delivered files never come back from the sandbox into the task's workspace",
    ),
    DefectCase(
        defect="sandbox-lease-kept",
        case="build-revise",
        cell=CONTAINER_CELL.format("build-revise"),
        expected_check="sandbox.released",
        why="the product never releases a finished run's lease, so the run holds its sandbox for ever",
    ),
    DefectCase(
        defect="sandbox-reaches-host",
        case="build-revise",
        cell=CONTAINER_CELL.format("build-revise"),
        expected_check="sandbox.contained",
        why="the runner's sandbox shares the host's network and sees the controller's data folder",
    ),
    DefectCase(
        defect="download-other-bytes",
        case="build-revise",
        expected_check="delivery.build.sha256",
        also_expected=("delivery.revision.sha256",),
        why="the downloaded ZIP's sha256 differs from the one the product recorded",
    ),
    DefectCase(
        defect="download-other-bytes",
        case="delegate-feedback",
        expected_check="delivery.child.sha256",
        why="the child's ZIP downloads with other bytes than the product recorded",
    ),
    DefectCase(
        defect="download-other-bytes",
        case="recover-controller",
        expected_check="delivery.final.sha256",
        why="the ZIP delivered across the restart downloads with other bytes than the product recorded",
    ),
    DefectCase(
        defect="download-other-bytes",
        case="hire-reuse",
        expected_check="delivery.first.sha256",
        also_expected=("delivery.second.sha256",),
        why="both of Morgan's ZIPs download with other bytes than the product recorded",
    ),
    DefectCase(
        defect="deliveries-not-listed",
        case="delegate-feedback",
        expected_check="delivery.child",
        why="the teammate delivered, but the child task lists no delivery to download",
    ),
    DefectCase(
        defect="deliveries-not-listed",
        case="recover-controller",
        expected_check="delivery.final",
        why="the agent delivered across the restart, but the task lists no delivery to download",
    ),
    DefectCase(
        defect="deliveries-not-listed",
        case="hire-reuse",
        expected_check="delivery.first",
        why="Morgan delivered, but the child task lists no delivery to download",
    ),
    DefectCase(
        defect="delivery-store-fails",
        case="build-revise",
        expected_check="stall.run-retrying-errors",
        why="every delivery upload answers 500; the runner retries it for minutes: named within seconds, not by the"
        " deadline",
    ),
    DefectCase(
        defect="deliveries-hidden-after-agents-second",
        case="build-revise",
        expected_check="delivery.revision",
        why="the build is listed; once the agent delivers the revision, the task lists none",
    ),
    DefectCase(
        defect="deliveries-hidden-after-agents-second",
        case="hire-reuse",
        expected_check="delivery.second",
        why="Morgan's first delivery is listed; Morgan's second piece of work lists none",
    ),
    # ---- near misses: each fails a check whose pass condition a looser rule let through ----
    DefectCase(
        defect="email-card-key-link-elsewhere",
        case="agentmail-setup",
        expected_check="email.key-link",
        why="the card's key link is https, but to a look-alike host, not AgentMail's documented page",
        alone=True,
    ),
    DefectCase(
        defect="credential-in-api-encoded",
        case="service-approve",
        expected_check="credential.not-in-api",
        why="GET /api/connections answers the credential base64-encoded: not the plain string, still the credential",
    ),
    DefectCase(
        defect="provider-disclosure-negated",
        case="provider-decline",
        expected_check="provider.question-discloses",
        why="the question has the words of a disclosure, saying nothing goes to an external service",
    ),
    DefectCase(
        defect="decision-wakes-nothing",
        case="provider-decline",
        expected_check="stall.task-never-woken",
        why="None is saved after the asking run ended, and no run ever reads it: named in seconds, not by the deadline",
    ),
    DefectCase(
        defect="decision-filed-under-agent",
        case="service-approve",
        expected_check="decision.saved-once",
        why="the Approve is saved, with a time, but as decided by the agent, not the person",
    ),
    DefectCase(
        defect="restart-reply-echoed",
        case="recover-controller",
        expected_check="restart.records-once",
        why="each reply after the restart is stored again as a note of no run: the same body twice",
    ),
    DefectCase(
        defect="model-call-metered-twice",
        case="build-revise",
        cell="everyday-workflows-replay.replay-codex.local.build-revise",
        expected_check="metering.calls-metered",
        why="each call the replay answered is metered twice: more metered than answered is double billing",
    ),
    DefectCase(
        defect="consumed-message-woken-again",
        case="build-revise",
        expected_check="lifecycle.messages-handed-once",
        why="the revision run read the request; when it ends, a third run is woken and handed the request again",
    ),
    DefectCase(
        defect="run-recorded-per-step",
        case="build-revise",
        expected_check="lifecycle.bounded-runs",
        why="every receipt leaves a finished copy of its run: far more run records than the story's bound",
    ),
    DefectCase(
        defect="run-identity-not-served",
        case="build-revise",
        expected_check="lifecycle.runner-identity",
        why="the runs are served without runner instance id, pid and start time",
    ),
    DefectCase(
        defect="parent-run-recorded-as-teammate",
        case="delegate-feedback",
        expected_check="lifecycle.parent-owned-by-lead",
        why="the lead's runs on the parent task are filed under the teammate",
    ),
    DefectCase(
        defect="sidebar-lists-skill-twice",
        case="create-skill-studio",
        expected_check="skill.sidebar-lists-created",
        why="the task's sidebar lists the skill it created twice",
        alone=True,
    ),
    DefectCase(
        defect="sidebar-links-same-heading",
        case="create-skill-studio",
        expected_check="skill.sidebar-opens-created",
        why="the sidebar's link opens an archived import with the same heading: Studio shows another id and slug",
        alone=True,
    ),
    DefectCase(
        defect="redownload-serves-newest",
        case="build-revise",
        expected_check="delivery.redownload-identical",
        why="the first delivery, downloaded again after the revision, comes back as the revision",
    ),
    DefectCase(
        defect="download-partial-while-running",
        case="build-revise",
        expected_check="invariant.delivery-bytes",
        why="a download while the task has an active run is cut in half; the final downloads are whole",
        pace_s=WINDOW_PACE_S,
    ),
    DefectCase(
        defect="message-stored-twice",
        case="build-revise",
        expected_check="lifecycle.messages-stored-once",
        why="the revision request is stored twice",
    ),
    DefectCase(
        defect="message-lost",
        case="build-revise",
        expected_check="lifecycle.messages-consumed",
        why="the revision run is recorded as having read the request, but its read receipt lists no ids; "
        "the ZIP is right anyway because the agent also reads the thread",
        # The counter agrees with the product's "read by" mark; counted from the runner's receipts it is one off.
        also_expected=("invariant.unread-count",),
    ),
    DefectCase(
        defect="read-still-unread",
        case="build-revise",
        expected_check="invariant.unread-count",
        also_expected=("lifecycle.no-pending-bookkeeping",),
        why="the revision request stays counted unread after the run read it",
    ),
    DefectCase(
        defect="runner-identity-changes",
        case="build-revise",
        expected_check="invariant.runner-identity",
        why="the run's runner instance id changes at every receipt",
    ),
    DefectCase(
        defect="stale-active-run-pointer",
        case="build-revise",
        expected_check="invariant.one-active-run",
        why="while the revision run is active the task still points at the build run",
        pace_s=WINDOW_PACE_S,
    ),
    DefectCase(
        defect="stop-without-signal",
        case="stop-redirect",
        expected_check="stop.process-group-gone",
        why="the product says the group is gone at once; the runner only leaves at its next refused call",
    ),
    DefectCase(
        defect="restart-second-run",
        case="recover-controller",
        expected_check="restart.same-run",
        why="the live runner's run is marked lost at start-up and a second run does the work",
    ),
    DefectCase(
        defect="restart-inbox-lost",
        case="recover-controller",
        expected_check="restart.message-received",
        why="the re-adopted runner's inbox marks the late message consumed but hands it none",
    ),
    DefectCase(
        defect="restart-drops-message",
        case="recover-controller",
        expected_check="restart.message-survived",
        why="the late message is gone after the restart",
    ),
    DefectCase(
        defect="child-assigned-to-lead",
        case="delegate-feedback",
        expected_check="delegate.one-child-for-teammate",
        why="the child task is assigned to the lead",
    ),
    DefectCase(
        defect="thread-shows-twice",
        case="build-revise",
        expected_check="ui.thread-matches-records",
        why="the page shows the revision request twice; the API stores it once",
    ),
    DefectCase(
        defect="badge-stuck-in-progress",
        case="build-revise",
        expected_check="expect.page-shows-status",
        why="the build is done, but the page's badge never leaves in progress",
    ),
    DefectCase(
        defect="badge-done-while-running",
        case="build-revise",
        expected_check="invariant.done-while-active",
        why="the page's badge says Done while the stored status is in progress",
        pace_s=WINDOW_PACE_S,
    ),
    DefectCase(
        defect="done-while-running",
        case="build-revise",
        expected_check="invariant.done-while-active",
        why="a starting run stores its task Done instead of in progress",
        pace_s=WINDOW_PACE_S,
    ),
    DefectCase(
        defect="forwards-before-approval",
        case="service-approve",
        expected_check="service.no-call-before-decision",
        why="the service receives the protected call while the card still waits for the person",
    ),
    DefectCase(
        defect="forwards-twice",
        case="service-approve",
        expected_check="service.one-call-after-approval",
        why="one Approve makes the service accept two calls (and create two documents)",
    ),
    DefectCase(
        defect="forwards-after-decline",
        case="service-decline",
        expected_check="service.no-call-after-decline",
        why="the decline is saved and the agent explains, but the service accepted the call",
    ),
    DefectCase(
        defect="declined-still-approvable",
        case="service-decline",
        expected_check="decision.declined-stays-declined",
        also_expected=("service.no-call-after-decline",),
        why="a later approval of the declined action is accepted: the product reopens it and forwards the call",
    ),
    DefectCase(
        defect="forwards-without-credential",
        case="service-approve",
        expected_check="service.one-call-after-approval",
        why="the forwarded call carries no credential: the service refuses it, and a refused request never counts",
    ),
    DefectCase(
        defect="card-shown-twice",
        case="service-approve",
        expected_check="decision.one-pending-request",
        why="one stored request, two cards on the page; nothing is clicked",
    ),
    DefectCase(
        defect="card-names-another-agent",
        case="service-approve",
        expected_check="decision.request-matches-story",
        why="the card names an agent other than the lead that asked; nothing is clicked",
    ),
    DefectCase(
        defect="card-hidden",
        case="service-decline",
        expected_check="expect.decision-card-shown",
        why="the request is stored but the page never shows a card to decide on",
    ),
    DefectCase(
        defect="intent-shown-again",
        case="connection-decline",
        persona="asks-again-after-decline",
        expected_check="decision.no-repeated-request",
        why="the agent asks again after Not now and the product shows the person a second card",
    ),
    DefectCase(
        defect="not-now-connects",
        case="connection-decline",
        expected_check="connection.none-created",
        why="Not now is saved, but the product adds a connection to the provider anyway",
    ),
    DefectCase(
        defect="email-card-two-password-fields",
        case="agentmail-setup",
        expected_check="email.one-password-field",
        why="the email setup card asks for the key in two password fields",
    ),
    DefectCase(
        defect="email-card-no-key-link",
        case="agentmail-setup",
        expected_check="email.key-link",
        why="the email setup card has no link to where the key is made",
    ),
    DefectCase(
        defect="decision-resaved-on-second-click",
        case="service-approve",
        expected_check="decision.saved-once",
        why="the Approve replayed through the API is saved again: the decision's time changes",
        alone=True,
    ),
    DefectCase(
        defect="email-card-changes-on-reload",
        case="agentmail-setup",
        expected_check="email.card-durable",
        why="after the reload the card reads as a reminder: its explanation is gone",
        alone=True,
    ),
    DefectCase(
        defect="email-card-shows-access-selector",
        case="agentmail-setup",
        expected_check="email.no-access-selectors-or-modal",
        why="the email setup card asks which access the agent gets, in a selector",
        alone=True,
    ),
    DefectCase(
        defect="connection-seeded-at-start",
        case="connection-decline",
        expected_check="connection.none-at-start",
        why="the company starts with a sample connection; the premise check fails (a failed verdict, not unexercised: "
        "the product made it) and the story goes on to pass everything else",
        alone=True,
    ),
    DefectCase(
        defect="credential-in-api",
        case="service-approve",
        expected_check="credential.not-in-api",
        why="GET /api/connections answers the credential in clear",
    ),
    DefectCase(
        defect="credential-rendered",
        case="service-approve",
        expected_check="credential.not-rendered",
        why="the services list carries the credential in an attribute of the connection's row",
    ),
    DefectCase(
        defect="unread-off-by-one",
        case="delegate-feedback",
        expected_check="invariant.unread-count",
        why="the child counts one unread message after the late feedback was read; the lead waits forever",
    ),
    DefectCase(
        defect="deliveries-newest-first",
        case="build-revise",
        expected_check="delivery.revision-differs",
        why="the newest delivery a person downloads after the revision is the first one again",
    ),
    DefectCase(
        defect="feedback-copied-to-parent",
        case="delegate-feedback",
        expected_check="delegate.feedback-in-child",
        why="the late feedback typed in the child's composer also lands in the parent's thread",
    ),
    DefectCase(
        defect="reports-to-ignored",
        case="delegate-feedback",
        expected_check="delegate.teammate-reports-to-lead",
        why="the teammate hired to report to the lead is stored reporting to nobody",
    ),
    DefectCase(
        defect="stop-records-succeeded",
        case="stop-redirect",
        expected_check="stop.run-cancelled",
        why="the stopped run is recorded succeeded, not cancelled by the user",
    ),
    DefectCase(
        defect="stop-retries-run",
        case="stop-redirect",
        expected_check="stop.nothing-ran-after-stop",
        why="a run the product queued by itself at Stop works on, nobody having asked for it",
    ),
    DefectCase(
        defect="stop-then-message-twice",
        case="stop-redirect",
        expected_check="stop.request-stored-once",
        why="the short-reply request sent after Stop is stored, and shown, twice",
    ),
    DefectCase(
        defect="stopped-task-never-done",
        case="stop-redirect",
        expected_check="stop.no-earlier-run-active",
        why="the answer after Stop declares Done, but the task ends in review",
    ),
    DefectCase(
        defect="restart-reuses-instance-id",
        case="recover-controller",
        expected_check="restart.controller-replaced",
        why="the restarted controller reports the old controller's instance id",
    ),
    DefectCase(
        defect="shutdown-hangs",
        case="recover-controller",
        expected_check="restart.controller-replaced",
        why="the controller outlasts the SIGTERM, so no new controller can take over: the product's failure, not the harness's",
    ),
    DefectCase(
        defect="restart-kills-runners",
        case="recover-controller",
        expected_check="restart.runner-kept-going",
        why="the controller's graceful shutdown kills the runner it should leave working",
    ),
    DefectCase(
        defect="restart-fails-last-step",
        case="recover-controller",
        expected_check="restart.receipt-prefix",
        why="re-adoption rewrites the run's last receipt from before the restart as failed",
    ),
    DefectCase(
        defect="restart-receipt-lost",
        case="recover-controller",
        expected_check="restart.receipts-once",
        why="the re-adopted runner's first receipt after the restart is answered but not stored: its seq is missing",
    ),
    DefectCase(
        defect="restart-replies-twice",
        case="recover-controller",
        expected_check="restart.records-once",
        why="each reply the re-adopted runner posts after the restart is stored twice",
    ),
    DefectCase(
        defect="task-read-server-error",
        case="build-revise",
        expected_check="product.api-answered",
        why="a product whose own API answers 500 during a story fails, never infrastructure_failed",
    ),
    DefectCase(
        defect="task-read-not-json",
        case="build-revise",
        expected_check="product.api-answered",
        why="a product whose API answers a task read with an HTML page fails, never infrastructure_failed",
    ),
    DefectCase(
        defect="task-read-hangs",
        case="build-revise",
        expected_check="product.api-answered",
        why="a product whose API stops answering task reads fails, never infrastructure_failed",
    ),
    DefectCase(
        defect="hire-stored-twice",
        case="hire-reuse",
        expected_check="hire.one-agent",
        why="one press of the hire form stores Morgan and a second agent, Morgan 2",
    ),
    DefectCase(
        defect="hire-form-drops-manager",
        case="hire-reuse",
        expected_check="hire.reports-to-lead",
        why="Morgan, hired through the form to report to the lead, is stored reporting to nobody",
    ),
    DefectCase(
        defect="hire-form-lists-no-managers",
        case="hire-reuse",
        expected_check="expect.hire-form-shown",
        why="the lead cannot be chosen under Reports to: the form offers only Nobody",
    ),
    DefectCase(
        defect="hire-form-prefixes-connections",
        case="hire-reuse",
        expected_check="expect.agent-hired",
        why="pressing Hire with the lead's connection ticked shows the API's refusal instead of the new agent",
    ),
    DefectCase(
        defect="hire-runner-ignored",
        case="hire-reuse",
        expected_check="hire.same-runner-as-lead",
        why="the form stores the first runner of its list, not the lead's runner the person chose",
    ),
    DefectCase(
        defect="hire-connections-dropped",
        case="hire-reuse",
        expected_check="hire.same-connections-as-lead",
        why="the lead's connection was ticked on the form, but Morgan is bound to none",
    ),
    DefectCase(
        defect="child-run-by-delegator",
        case="hire-reuse",
        expected_check="reuse.first-child-to-hire",
        why="the child task is Morgan's, but the lead's runner does the work: Morgan never runs",
    ),
    DefectCase(
        defect="delegation-hires-copy",
        case="hire-reuse",
        expected_check="reuse.same-agent-again",
        why="the second piece of work goes to a copy of Morgan (Morgan 2) the product hired on the way",
    ),
    DefectCase(
        defect="skill-created-twice",
        case="create-skill-studio",
        expected_check="skill.created-once",
        why="one skill request adds two library entries",
        alone=True,
    ),
    DefectCase(
        defect="skill-card-missing",
        case="create-skill-studio",
        expected_check="skill.notice-shown",
        why="the skill is in the library but the task's thread shows no card for it",
        alone=True,
    ),
    DefectCase(
        defect="card-links-same-heading",
        case="create-skill-studio",
        expected_check="skill.notice-opens-created",
        why="the card opens another skill with the same heading: Studio shows another id and slug",
        alone=True,
    ),
    DefectCase(
        defect="skill-edit-not-saved",
        case="create-skill-studio",
        expected_check="skill.edit-saved",
        why="Studio answers Saved but the library keeps the old body; reopened from the sidebar it shows the old body",
        alone=True,
    ),
    DefectCase(
        defect="skill-edit-lost-on-reload",
        case="create-skill-studio",
        expected_check="skill.edit-kept-after-reload",
        why="the edit is stored and shown, but a reload of Studio shows the first version",
        alone=True,
    ),
    DefectCase(
        defect="routine-fires-twice",
        case="routine-run",
        expected_check="routine.fired-once",
        why="the sender's retry of one webhook delivery (same Idempotency-Key) starts a second task",
    ),
    DefectCase(
        defect="routine-task-asleep",
        case="routine-run",
        expected_check="expect.routine-run-started",
        why="the fired routine's task is created for the lead, but no run ever starts on it",
    ),
    DefectCase(
        defect="routine-record-empty",
        case="routine-run",
        expected_check="routine.record-shows-run",
        why="the routine's record lists none of the times it fired",
        alone=True,
    ),
    DefectCase(
        defect="routine-page-stale-status",
        case="routine-run",
        expected_check="routine.page-shows-run",
        why="the routine's page shows the run's task as To do after it was done",
        alone=True,
    ),
    DefectCase(
        defect="budget-not-enforced",
        case="budget-stop",
        expected_check="budget.run-paused",
        why="the lead spends past its budget and finishes: nothing paused it",
        alone=True,
    ),
    DefectCase(
        defect="budget-pause-leaves-run-going",
        case="budget-stop",
        expected_check="budget.no-call-while-paused",
        why="the lead is shown paused, but its run goes on calling the model",
        alone=True,
    ),
    DefectCase(
        defect="cost-page-hides-pause",
        case="budget-stop",
        expected_check="budget.cost-page-shows-pause",
        why="the cost page shows the paused lead as active",
        alone=True,
    ),
    DefectCase(
        defect="budget-raise-keeps-pause",
        case="budget-stop",
        expected_check="budget.resumed-after-raise",
        why="the raised budget is saved, but the lead stays paused and no run takes the work up again",
    ),
    DefectCase(
        defect="provider-no-disclosure",
        case="provider-decline",
        expected_check="provider.question-discloses",
        why="the question offers the aggregators without saying the data would go to an external service",
    ),
    DefectCase(
        defect="provider-options-reordered",
        case="provider-decline",
        expected_check="provider.question-options",
        why="the aggregators are listed Arcade, Composio, Zapier instead of the catalog's order",
    ),
    DefectCase(
        defect="provider-none-missing",
        case="provider-decline",
        expected_check="provider.question-options",
        why="the question has no None: the person cannot decline routing",
    ),
    DefectCase(
        defect="gateway-called-before-choice",
        case="provider-second",
        expected_check="gateway.no-call-before-choice",
        why="opening the question calls the installed gateway's look-up before anyone chose",
    ),
    DefectCase(
        defect="provider-asked-again",
        case="provider-decline",
        persona="asks-again-after-decline",
        expected_check="provider.one-question",
        why="the agent asks again after None and the product opens a second question",
    ),
    DefectCase(
        defect="provider-choice-duplicates-connection",
        case="provider-second",
        expected_check="provider.no-duplicate-connection",
        why="choosing Arcade adds a second connection to the gateway instead of using the installed one",
    ),
    DefectCase(
        defect="question-lost-on-restart",
        case="provider-decline",
        expected_check="provider.question-survived-restart",
        why="the restarted controller drops the pending question: a reload shows nothing to choose on",
    ),
    DefectCase(
        defect="native-falls-back-to-aggregators",
        case="provider-native",
        expected_check="provider.no-question",
        why="Not now on Jira's card opens a provider question for Jira",
    ),
    # ---- every expectation a story waits on (harness/running/expectations.py) can fail ----
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
    # ---- the team: hires the board decides on, and an agent's controls ----
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


def missing_cases() -> list[str]:
    """Defects the testbed can switch on that no case here calibrates (each one fails calibration)."""
    covered = {case.defect for case in DEFECT_CASES}
    return sorted(name for name in REGISTRY if name not in covered)


def unknown_defects() -> list[str]:
    """Cases naming a defect the testbed does not have (a typo would otherwise run the healthy product)."""
    return sorted(case.defect for case in DEFECT_CASES if case.defect not in REGISTRY)


def run_defect(case: DefectCase, results: Path) -> AttemptRecord | None:
    """Play the story's scripted cell (or the case's ``cell``) with the defect on, exactly as `harness run` plays it."""
    return play_cell(
        case.cell or case.case,
        results,
        case.campaign,
        product_defect=case.defect,
        pace_s=case.pace_s,
        deadline_s=case.deadline_s,
        scripted_persona=case.persona,
    )


def row_for(case: DefectCase, record: AttemptRecord | None) -> Row:
    """Caught only as `failed` with the intended check failing, and not by the deadline."""
    expected = f"fail {case.expected_check}"
    if record is None:
        return Row(
            suite="product-defects",
            delivery=case.label,
            mode="-",
            expected=expected,
            got="no attempt",
            deciding="-",
            detail="the run left no attempt.json",
            ok=False,
        )
    failed = record.failed_check_ids()
    by_deadline = bool(DEADLINE_REASON.search(record.reason))
    deciding = case.expected_check if case.expected_check in failed else (failed[0] if failed else "-")
    others = [check for check in failed if check != deciding]
    not_alone = case.alone and bool(set(others) - set(case.also_expected))
    missing = [check for check in case.also_expected if check not in failed]
    ok = (
        record.verdict is Verdict.FAILED
        and case.expected_check in failed
        and not missing
        and not by_deadline
        and not not_alone
    )
    got = (
        record.verdict.value
        + (" (deadline)" if by_deadline else "")
        + (" (not alone)" if not_alone else "")
        + (f" (without {', '.join(missing)})" if missing else "")
    )
    detail = record.reason[:240] + (f" [also failed: {', '.join(others[:6])}]" if others else "")
    return Row(
        suite="product-defects",
        delivery=case.label,
        mode="-",
        expected=expected,
        got=got,
        deciding=deciding,
        detail=detail,
        ok=ok,
    )


def registry_rows() -> list[Row]:
    """A wrong row for every defect without a case and every case without a defect."""
    rows = [
        Row(
            suite="product-defects",
            delivery=f"-/{name}",
            mode="-",
            expected="a calibration case",
            got="none",
            deciding="-",
            detail=f"defect {name} is registered in testbed/defects but no case calibrates it",
            ok=False,
        )
        for name in missing_cases()
    ]
    rows += [
        Row(
            suite="product-defects",
            delivery=f"-/{name}",
            mode="-",
            expected="a testbed defect",
            got="none",
            deciding="-",
            detail=f"a case names defect {name}, which the testbed does not have",
            ok=False,
        )
        for name in unknown_defects()
    ]
    return rows


def run_product_defect_suite(keep: Path | None = None) -> list[Row]:
    """Every defect's cell, in the cell workers every suite shares, in registration order."""
    cases = [case for case in DEFECT_CASES if case.defect in REGISTRY]
    return registry_rows() + played_rows(cases, run_defect, row_for, keep)
