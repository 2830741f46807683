"""Product defects on purpose: realistic bugs a product team could ship, off unless calibration switches them on.

The harness is trusted only if it fails a broken product, each time under the
check that names the breakage; so calibration runs the stories against the
testbed with one of these defects switched on (``python -m testbed serve
--defect NAME``, repeatable, or ``TESTBED_DEFECTS=a,b`` in the controller's
environment). Normal runs never switch any on.

The registry below names every defect and the one place it hooks in. The
product calls each hook (:mod:`testbed.defects.hooks`) at one well-named
point; with no defect on, every hook answers what the normal path computed,
so the product's code reads the same with or without this package. Runners
never see the switch: they get a minimal environment.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

ENV = "TESTBED_DEFECTS"

Area = Literal[
    "downloads",
    "messages",
    "runs",
    "stop",
    "restart",
    "delegation",
    "ui",
    "task-status",
    "bookkeeping",
    "decisions",
    "credentials",
    "api",
    "skills",
    "providers",
]

log = logging.getLogger("testbed.defects")


class Defect(BaseModel):
    """One named defect: what part of the product it breaks, where it hooks in, and what a user would see."""

    model_config = ConfigDict(frozen=True)

    name: str
    area: Area
    hook: str
    summary: str


DEFECTS: tuple[Defect, ...] = (
    Defect(
        name="download-other-bytes",
        area="downloads",
        hook="api.download_delivery -> hooks.served_bytes",
        summary="a download serves a repacked ZIP (same files, other bytes) under the recorded sha256",
    ),
    Defect(
        name="redownload-serves-newest",
        area="downloads",
        hook="api.download_delivery -> hooks.served_bytes",
        summary="downloading an older delivery of a task serves the task's newest delivery",
    ),
    Defect(
        name="download-partial-while-running",
        area="downloads",
        hook="api.download_delivery -> hooks.served_bytes",
        summary="while the task has an active run, a delivery downloads cut in half (a blob still being written)",
    ),
    Defect(
        name="message-stored-twice",
        area="messages",
        hook="api.post_comment -> hooks.after_user_message",
        summary="a user message is stored twice",
    ),
    Defect(
        name="message-lost",
        area="messages",
        hook="agent_api.inbox -> hooks.handed_to_agent",
        summary="the inbox marks messages consumed by the run but hands the agent none of them",
    ),
    Defect(
        name="read-still-unread",
        area="messages",
        hook="records.task -> hooks.unread_count",
        summary="messages marked read by a run stay in the task's unread counter",
    ),
    Defect(
        name="runner-identity-changes",
        area="runs",
        hook="agent_api.receipt -> hooks.after_receipt",
        summary="every receipt re-registers the run under a new runner instance id, mid-run",
    ),
    Defect(
        name="stale-active-run-pointer",
        area="runs",
        hook="records.task -> hooks.active_run_pointer",
        summary="the task's active-run pointer keeps naming its first run while a later run is active",
    ),
    Defect(
        name="stop-without-signal",
        area="stop",
        hook="controller.stop -> hooks.stop_signals_runner",
        summary="Stop records the run cancelled and its process group gone without signalling the runner",
    ),
    Defect(
        name="restart-second-run",
        area="restart",
        hook="controller.recover -> hooks.recovering",
        summary="after a restart the live runner's run is marked lost and a second run is started instead",
    ),
    Defect(
        name="restart-inbox-lost",
        area="restart",
        hook="agent_api.inbox -> hooks.handed_to_agent",
        summary="after a restart, a re-adopted runner's inbox marks messages consumed but hands over none",
    ),
    Defect(
        name="restart-drops-message",
        area="restart",
        hook="controller.recover -> hooks.recovering",
        summary="a restart loses the newest user message on each task with a running run",
    ),
    Defect(
        name="child-assigned-to-lead",
        area="delegation",
        hook="agent_api.create_child -> hooks.child_assignee",
        summary="a delegated child task is assigned to the delegating agent instead of the named teammate",
    ),
    Defect(
        name="thread-shows-twice",
        area="ui",
        hook="web.thread_context -> hooks.as_shown",
        summary="the task page shows the newest user message twice (stored once)",
    ),
    Defect(
        name="badge-done-while-running",
        area="ui",
        hook="web.thread_context -> hooks.as_shown",
        summary="the status badge shows Done while the stored status is in progress",
    ),
    Defect(
        name="badge-stuck-in-progress",
        area="ui",
        hook="web.thread_context -> hooks.as_shown",
        summary="once a task has finished, its page's status badge still says in progress (the API has it right)",
    ),
    Defect(
        name="done-while-running",
        area="task-status",
        hook="controller.start -> hooks.started_status",
        summary="a run starting sets its task Done instead of in progress, while the run works",
    ),
    Defect(
        name="forwards-before-approval",
        area="decisions",
        hook="interactions.request_action -> hooks.forwards_before_decision",
        summary="an Ask-first action is forwarded to the service as soon as the agent asks, while the card waits",
    ),
    Defect(
        name="forwards-twice",
        area="decisions",
        hook="interactions.decide -> hooks.forwards_on_approval",
        summary="Approve forwards the action twice (a retry after a call that had succeeded)",
    ),
    Defect(
        name="forwards-after-decline",
        area="decisions",
        hook="interactions.decide -> hooks.forwards_on_decline",
        summary="Decline is saved and told to the agent, but the action is forwarded to the service anyway",
    ),
    Defect(
        name="forwards-without-credential",
        area="decisions",
        hook="interactions._forward -> hooks.forwarding_credential",
        summary="Approve forwards the action without the connection's credential; the service refuses it",
    ),
    Defect(
        name="card-shown-twice",
        area="decisions",
        hook="web.thread_context -> hooks.interactions_as_shown",
        summary="the task page shows each pending decision card twice (stored once)",
    ),
    Defect(
        name="card-names-another-agent",
        area="decisions",
        hook="web.thread_context -> hooks.interactions_as_shown",
        summary="a decision card names another agent than the one that asked",
    ),
    Defect(
        name="card-hidden",
        area="decisions",
        hook="web.thread_context -> hooks.interactions_as_shown",
        summary="a pending decision is stored but the task page never shows its card",
    ),
    Defect(
        name="intent-shown-again",
        area="decisions",
        hook="intents.request_connection -> hooks.asks_again_after_not_now",
        summary="a connection request the person answered Not now opens a new card when the agent asks again",
    ),
    Defect(
        name="not-now-connects",
        area="decisions",
        hook="interactions.decide -> hooks.after_not_now",
        summary="Not now on a connection request is saved, and a connection to the provider is added anyway",
    ),
    Defect(
        name="email-card-two-password-fields",
        area="decisions",
        hook="web.thread_context -> hooks.email_card_as_shown",
        summary="the email setup card asks for the API key in two password fields",
    ),
    Defect(
        name="email-card-no-key-link",
        area="decisions",
        hook="web.thread_context -> hooks.email_card_as_shown",
        summary="the email setup card has no link to where the API key is made",
    ),
    Defect(
        name="decision-resaved-on-second-click",
        area="decisions",
        hook="interactions.decide -> hooks.resaves_repeated_decision",
        summary="a second click (or a resent request) on a decided card saves the same decision again, under a new time",
    ),
    Defect(
        name="email-card-changes-on-reload",
        area="decisions",
        hook="web.thread_context -> hooks.email_card_as_shown",
        summary="after a reload of the task page, the email setup card is redrawn as a shorter reminder",
    ),
    Defect(
        name="email-card-shows-access-selector",
        area="decisions",
        hook="web.thread_context -> hooks.email_card_as_shown",
        summary="the email setup card asks which access the agent gets, in a selector next to the key field",
    ),
    Defect(
        name="connection-seeded-at-start",
        area="decisions",
        hook="controller.Controller -> hooks.seed_company",
        summary="a new company starts with a sample connection the product adds by itself",
    ),
    Defect(
        name="credential-in-api",
        area="credentials",
        hook="services_api.list_connections -> hooks.connections_as_served",
        summary="the connections list answers each connection's credential in clear",
    ),
    Defect(
        name="credential-rendered",
        area="credentials",
        hook="web.render_index -> hooks.rendered_credentials",
        summary="the services list renders each connection's credential in an attribute of its row",
    ),
    Defect(
        name="unread-off-by-one",
        area="bookkeeping",
        hook="records.task -> hooks.unread_count",
        summary="once a message was consumed, the unread counter counts one more than there are",
    ),
    Defect(
        name="deliveries-newest-first",
        area="downloads",
        hook="records.deliveries -> hooks.listed_deliveries",
        summary="a task lists its deliveries newest first, so the last one listed is the oldest",
    ),
    Defect(
        name="feedback-copied-to-parent",
        area="messages",
        hook="api.post_comment -> hooks.after_user_message",
        summary="a user message on a child task is also posted to its parent's thread",
    ),
    Defect(
        name="stop-retries-run",
        area="stop",
        hook="controller.stop -> hooks.after_stop",
        summary="Stop wakes the stopped task as if its runner had been lost: the work starts again by itself",
    ),
    Defect(
        name="stop-then-message-twice",
        area="stop",
        hook="api.post_comment -> hooks.after_user_message",
        summary="the first message after a Stop is stored twice (once for the new run, once to resume the stopped one)",
    ),
    Defect(
        name="reports-to-ignored",
        area="delegation",
        hook="api.create_agent -> hooks.hired_reports_to",
        summary="hiring an agent drops the manager it reports to",
    ),
    Defect(
        name="hire-stored-twice",
        area="delegation",
        hook="web.create_agent_form -> hooks.hire_form_copies",
        summary="one press of the hire form stores the agent twice (the copy under the name with a 2 added)",
    ),
    Defect(
        name="hire-form-drops-manager",
        area="delegation",
        hook="web.create_agent_form -> hooks.hired_manager",
        summary="the hire form drops the manager chosen under Reports to (the API keeps it): the agent reports to nobody",
    ),
    Defect(
        name="hire-form-lists-no-managers",
        area="delegation",
        hook="web.render_index -> hooks.hire_form_managers",
        summary="the hire form's Reports to list offers only Nobody, so no manager can be chosen",
    ),
    Defect(
        name="hire-form-prefixes-connections",
        area="delegation",
        hook="web.create_agent_form -> hooks.hire_form_connection_values",
        summary="the hire form's connection boxes send a prefixed value (connection-5, not 5), which the API refuses",
    ),
    Defect(
        name="hire-runner-ignored",
        area="delegation",
        hook="web.create_agent_form -> hooks.hired_adapter",
        summary="the hire form stores the first runner of its list instead of the one chosen",
    ),
    Defect(
        name="hire-connections-dropped",
        area="delegation",
        hook="web.create_agent_form -> hooks.hired_connections",
        summary="the hire form drops the connections ticked for the new agent: it is bound to none",
    ),
    Defect(
        name="child-run-by-delegator",
        area="delegation",
        hook="controller.queue_pending -> hooks.run_agent",
        summary="a delegated child task stays assigned to the teammate, but its runs are started for the delegating agent",
    ),
    Defect(
        name="delegation-hires-copy",
        area="delegation",
        hook="agent_ops.create_child -> hooks.child_assignee",
        summary="delegating to a teammate who already has a task hires a copy of them and assigns the child to the copy",
    ),
    Defect(
        name="stop-records-succeeded",
        area="stop",
        hook="controller.end_stopped -> hooks.stopped_outcome",
        summary="Stop kills the runner but records the run succeeded instead of cancelled",
    ),
    Defect(
        name="stopped-task-never-done",
        area="task-status",
        hook="controller._move_task_on -> hooks.settled_status",
        summary="once a run on a task was stopped, the Done a later run declares is dropped: the task ends in review",
    ),
    Defect(
        name="restart-reuses-instance-id",
        area="restart",
        hook="controller.Controller -> hooks.controller_instance_id",
        summary="the controller keeps its instance id in its data folder and reports the same one after a restart",
    ),
    Defect(
        name="restart-kills-runners",
        area="restart",
        hook="app.lifespan -> hooks.shutting_down",
        summary="a graceful controller shutdown kills its runners' process groups instead of leaving them working",
    ),
    Defect(
        name="shutdown-hangs",
        area="restart",
        hook="app.lifespan -> hooks.shutting_down",
        summary="a graceful shutdown never finishes: the controller outlasts SIGTERM and no new one can take over",
    ),
    Defect(
        name="restart-fails-last-step",
        area="restart",
        hook="controller.recover -> hooks.recovering",
        summary="re-adopting a run after a restart rewrites its last receipt as failed (interrupted)",
    ),
    Defect(
        name="restart-receipt-lost",
        area="restart",
        hook="agent_ops.receipt -> hooks.after_receipt",
        summary="the first receipt a re-adopted runner sends after a restart is acknowledged but never stored",
    ),
    Defect(
        name="restart-replies-twice",
        area="restart",
        hook="agent_ops.comment -> hooks.after_agent_comment",
        summary="after a restart, every reply a re-adopted run posts is stored twice",
    ),
    Defect(
        name="task-read-server-error",
        area="api",
        hook="api.get_task -> hooks.task_read_fault",
        summary="once a run on a task has succeeded, reading that task answers 500 (the product's API breaks on its own records)",
    ),
    Defect(
        name="task-read-not-json",
        area="api",
        hook="api.get_task -> hooks.task_read_fault",
        summary="once a run on a task has succeeded, reading that task answers 200 with an HTML error page, not JSON",
    ),
    Defect(
        name="task-read-hangs",
        area="api",
        hook="api.get_task -> hooks.task_read_fault",
        summary="once a run on a task has succeeded, reading that task gives no answer for longer than any client waits",
    ),
    Defect(
        name="skill-created-twice",
        area="skills",
        hook="skills.create_skill -> hooks.after_skill_created",
        summary="an agent's one skill request adds two library entries",
    ),
    Defect(
        name="skill-card-missing",
        area="skills",
        hook="skills.create_skill -> hooks.card_skill",
        summary="a skill is created but its task's thread gets no card",
    ),
    Defect(
        name="card-links-same-heading",
        area="skills",
        hook="skills.create_skill -> hooks.card_skill",
        summary="the thread card links to another (archived) skill with the same heading",
    ),
    Defect(
        name="skill-edit-not-saved",
        area="skills",
        hook="skills.save_version -> hooks.version_stored",
        summary="Skill Studio answers Saved but stores no new version",
    ),
    Defect(
        name="skill-edit-lost-on-reload",
        area="skills",
        hook="web studio page -> hooks.studio_body",
        summary="a reload of Skill Studio shows the skill's first version instead of its newest",
    ),
    Defect(
        name="new-task-lands-on-list",
        area="ui",
        hook="web.create_task_form -> hooks.created_task_url",
        summary="the new-task form creates the task but sends the person back to the task list, not to its page",
    ),
    Defect(
        name="child-link-opens-parent",
        area="delegation",
        hook="web.thread_context -> hooks.child_link",
        summary="a child task's link on its parent's page opens the parent again",
    ),
    Defect(
        name="ended-run-still-active",
        area="runs",
        hook="records.task -> hooks.active_run_pointer",
        summary="a task keeps naming its last run active after that run ended (cleared only when the next one starts)",
    ),
    Defect(
        name="run-end-keeps-task-in-progress",
        area="task-status",
        hook="controller.end_run_in -> hooks.run_end_moves_task",
        summary="a run's end never moves its task on: the task stays in progress with nothing running",
    ),
    Defect(
        name="thread-hides-newest-message",
        area="ui",
        hook="web.thread_context -> hooks.as_shown",
        summary="the task page's thread window ends one message early: the newest user message is stored, never shown",
    ),
    Defect(
        name="message-stored-crlf",
        area="messages",
        hook="api.post_comment -> hooks.stored_message_body",
        summary="a user message is stored with CRLF line breaks: the page shows it as typed, the API answers other text",
    ),
    Defect(
        name="download-link-broken",
        area="downloads",
        hook="web.thread_context -> hooks.as_shown",
        summary="the task page links each delivery's download without the API prefix: the link answers 404",
    ),
    Defect(
        name="deliveries-not-listed",
        area="downloads",
        hook="records.deliveries -> hooks.listed_deliveries",
        summary="a task lists none of its deliveries (each is stored, and downloads by its id)",
    ),
    Defect(
        name="stop-end-not-recorded",
        area="stop",
        hook="controller.end_stopped -> hooks.stop_recorded",
        summary="Stop kills the runner's process group but the run stays recorded running",
    ),
    Defect(
        name="stop-result-hidden",
        area="stop",
        hook="web.thread_context -> hooks.stop_result_as_shown",
        summary="the task page never reports a Stop: the run is cancelled, the page says nothing about it",
    ),
    Defect(
        name="ask-first-not-enforced",
        area="decisions",
        hook="interactions.request_action -> hooks.asks_first",
        summary="an action on an Ask-first connection runs at once: nobody is asked",
    ),
    Defect(
        name="decision-not-saved",
        area="decisions",
        hook="interactions.decide -> hooks.decision_saved",
        summary="Approve or Decline on a card is answered but never saved: the request stays pending",
    ),
)

DEFECTS += (
    Defect(
        name="provider-no-disclosure",
        area="providers",
        hook="providers.ask -> hooks.question_disclosure",
        summary="a provider question lists the aggregators without saying the data would go to an external service",
    ),
    Defect(
        name="provider-options-reordered",
        area="providers",
        hook="providers.ask -> hooks.question_options",
        summary="a provider question lists the aggregators alphabetically instead of in the catalog's order",
    ),
    Defect(
        name="provider-none-missing",
        area="providers",
        hook="providers.ask -> hooks.question_options",
        summary="a provider question offers only the aggregators: there is no None to choose",
    ),
    Defect(
        name="gateway-called-before-choice",
        area="providers",
        hook="providers.ask -> hooks.warms_route",
        summary="opening a provider question checks the route by calling each installed aggregator's read action",
    ),
    Defect(
        name="provider-asked-again",
        area="providers",
        hook="providers.ask -> hooks.asks_provider_again",
        summary="an agent asking again about a provider already chosen for opens a second question",
    ),
    Defect(
        name="provider-choice-duplicates-connection",
        area="providers",
        hook="providers.route -> hooks.route_connection",
        summary="choosing an aggregator adds a new connection copying the gateway's instead of using the one there is",
    ),
    Defect(
        name="question-lost-on-restart",
        area="providers",
        hook="controller.recover -> hooks.recovering_questions",
        summary="a controller start-up drops pending provider questions whose asking run has ended, as stale",
    ),
    Defect(
        name="native-falls-back-to-aggregators",
        area="providers",
        hook="interactions.decide -> hooks.after_not_now",
        summary="Not now on a native connector's card opens a provider question for the same provider",
    ),
    Defect(
        name="delivery-store-fails",
        area="downloads",
        hook="agent_ops.deliver -> hooks.before_delivery_stored",
        summary="storing a delivery fails (a full disk): the agent API answers 500 and the runner retries for minutes",
    ),
    Defect(
        name="deliveries-hidden-after-agents-second",
        area="downloads",
        hook="records.deliveries -> hooks.listed_deliveries",
        summary="a task lists its deliveries only while their agent has delivered once in all (a count over the"
        " agent's deliveries, not the task's): a revision, or an agent's second piece of work, lists none",
    ),
    Defect(
        name="email-card-key-link-elsewhere",
        area="decisions",
        hook="web.email_card -> hooks.email_card_as_shown",
        summary="the email setup card links to a look-alike https host, not AgentMail's page for API keys",
    ),
    Defect(
        name="credential-in-api-encoded",
        area="credentials",
        hook="api.connections -> hooks.connections_as_served",
        summary="GET /api/connections answers each connection's credential base64-encoded, as a 'token'",
    ),
    Defect(
        name="provider-disclosure-negated",
        area="providers",
        hook="providers.ask -> hooks.question_disclosure",
        summary="the provider question says nothing goes to an external service, though choosing one sends the data",
    ),
    Defect(
        name="decision-wakes-nothing",
        area="decisions",
        hook="interactions.decide -> hooks.wakes_after_decision",
        summary="a decision is saved, but its task is never woken: no run reads the answer, the task waits for ever",
    ),
    Defect(
        name="decision-filed-under-agent",
        area="decisions",
        hook="interactions.decide -> hooks.decided_by",
        summary="a person's decision is stored as made by the agent that asked",
    ),
    Defect(
        name="restart-reply-echoed",
        area="restart",
        hook="agent_api.comment -> hooks.after_agent_comment",
        summary="after a restart each reply of the re-adopted runner is echoed again as a note of no run",
    ),
    Defect(
        name="model-call-metered-twice",
        area="bookkeeping",
        hook="agent_ops.record_call -> hooks.meters_call_twice",
        summary="each model call's admission is recorded twice: every call the model answered is billed twice",
    ),
    Defect(
        name="consumed-message-woken-again",
        area="messages",
        hook="controller.end_run_in -> hooks.after_run_end; agent_api.inbox -> hooks.handed_to_agent",
        summary="a run that read a message wakes its task once more when it ends, and the new run is handed the"
        " message again, though the first run consumed it",
    ),
    Defect(
        name="run-recorded-per-step",
        area="runs",
        hook="agent_api.receipt -> hooks.after_receipt",
        summary="every receipt of a run leaves a finished copy of the run's record behind: dozens of run records",
    ),
    Defect(
        name="run-identity-not-served",
        area="runs",
        hook="records.task -> hooks.runs_as_recorded",
        summary="a task's runs are served without their runner's instance id, pid and start time",
    ),
    Defect(
        name="parent-run-recorded-as-teammate",
        area="delegation",
        hook="records.task -> hooks.runs_as_recorded",
        summary="the lead's runs on a parent task are filed under the teammate its child belongs to",
    ),
    Defect(
        name="sidebar-lists-skill-twice",
        area="skills",
        hook="skills.task_skills -> hooks.sidebar_entries",
        summary="a task's sidebar lists the skill it created twice (once as created, once as used)",
    ),
    Defect(
        name="sidebar-links-same-heading",
        area="skills",
        hook="skills.task_skills -> hooks.sidebar_entries",
        summary="the sidebar's link resolves its skill by heading, and an archived import of the same heading wins",
    ),
    Defect(
        name="model-call-admission-skipped",
        area="bookkeeping",
        hook="agent_ops.record_call -> hooks.skips_model_call",
        summary="the controller acknowledges a forwarded model call's admission without recording it, so its"
        " completion finds no call to complete: every call the model answered goes unmetered",
    ),
)

REGISTRY: dict[str, Defect] = {defect.name: defect for defect in DEFECTS}

_active: frozenset[str] = frozenset()


class UnknownDefect(ValueError):
    """A defect name that is not in the registry: refused at start, never ignored."""


def configure(names: Iterable[str]) -> frozenset[str]:
    """Switch on exactly ``names`` (plus any named in ``TESTBED_DEFECTS``) for this controller process."""
    global _active
    from_env = [name.strip() for name in os.environ.get(ENV, "").split(",") if name.strip()]
    wanted = frozenset([*names, *from_env])
    unknown = sorted(wanted - REGISTRY.keys())
    if unknown:
        raise UnknownDefect(f"unknown defect(s) {', '.join(unknown)}; known: {', '.join(REGISTRY)}")
    _active = wanted
    if wanted:
        log.warning("PRODUCT DEFECTS ON (calibration only): %s", ", ".join(sorted(wanted)))
    return wanted


def active(name: str) -> bool:
    """True when defect ``name`` is switched on in this process."""
    assert name in REGISTRY, f"no defect named {name!r}"
    return name in _active


def active_names() -> list[str]:
    return sorted(_active)
