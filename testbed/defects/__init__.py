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
    "api",
    "skills",
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
        name="done-while-running",
        area="task-status",
        hook="controller.start -> hooks.started_status",
        summary="a run starting sets its task Done instead of in progress, while the run works",
    ),
    Defect(
        name="unread-off-by-one",
        area="bookkeeping",
        hook="records.task -> hooks.unread_count",
        summary="once a message was consumed, the unread counter counts one more than there are",
    ),
    Defect(
        name="task-read-server-error",
        area="api",
        hook="api.get_task -> hooks.task_read_error",
        summary="once a run on a task has succeeded, reading that task answers 500 (the product's API breaks on its own records)",
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
