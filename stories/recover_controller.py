"""The server restarts under a running job.

A person asks for the slugify tool and, while the agent is writing it, adds
one more requirement. Right after the message is stored the controller goes
down (SIGTERM here; SIGKILL in ``recover_controller_sigkill``) and comes back
while the agent's runner keeps going. The same run must finish the job, read
the message once, record nothing twice, and deliver a ZIP that honours it.
"""

from __future__ import annotations

import signal

from harness.core.catalog import Case
from harness.faults.restart import require_recovered, restart_controller, wait_until_work_done
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import (
    BUILD_TASK,
    BUILD_TASK_TITLE,
    LATE_REQUIREMENT_MAX_LENGTH,
    REVISION_SEPARATOR,
    SOURCE_FILE,
)

CASE = Case(
    name="recover-controller",
    needs=("controller-restart",),
    scripted_deadline_s=180,
    scripted_pace_s=0.3,
    description="The controller restarts (SIGTERM) mid-run; the runner survives and the task still finishes.",
)


def recover(journey: Journey, sig: signal.Signals) -> None:
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    working = journey.wait_until_source_saved(task, SOURCE_FILE)
    late = journey.submit_message(LATE_REQUIREMENT_MAX_LENGTH)
    restart = restart_controller(journey, working, sig, once_stored=late)

    wait_until_work_done(journey, task, restart, "the build after the restart")
    final = journey.download_latest_delivery(task, phase="final")
    journey.grade(final, mode="max-length")
    require_recovered(journey, task, restart)


def recover_remote(journey: Journey) -> None:
    """The restart rule for a runner in a sandbox: the first delivery, downloaded and graded, is the checkpoint;
    the controller goes down during the revision, with one more requirement queued. The same run, runner and
    lease must carry on (kept as remote-restart-{before,after,final}.json: identities and hashes only)."""
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    journey.wait_until_finished(task, "the build")
    checkpoint = journey.download_latest_delivery(task, phase="build")
    journey.grade(checkpoint, mode="base")

    journey.send_message(REVISION_SEPARATOR)
    revising = journey.wait_until_revision_saved(task)
    late = journey.submit_message(LATE_REQUIREMENT_MAX_LENGTH)
    restart = restart_controller(journey, revising, signal.SIGTERM, once_stored=late, name="remote-restart")

    wait_until_work_done(journey, task, restart, "the revision after the restart")
    final = journey.download_latest_delivery(task, phase="final")
    journey.grade(final, mode="separator+max-length")
    require_recovered(journey, task, restart)


def story(journey: Journey) -> None:
    if journey.cell.environment.sandbox == "container":
        recover_remote(journey)
    else:
        recover(journey, signal.SIGTERM)
