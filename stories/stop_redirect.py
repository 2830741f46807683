"""Stop, and change direction.

A person asks for the slugify tool, changes their mind while the agent is
writing it and clicks Stop. Once the agent's processes are gone they ask
only for a short reply carrying a fresh nonce. After a reload they must see
their request once, an answer with the nonce, the task done, nothing else
running, and the workspace exactly as it was when Stop took effect.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.core.criteria import Criterion, EvidenceNeed
from harness.faults.stop import require_short_reply, stop_active_work
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, REVISION_SEPARATOR, SOURCE_FILE, nonce_request

CASE = Case(
    name="stop-redirect",
    needs=("stop",),
    scripted_deadline_s=120,
    scripted_pace_s=0.3,
    description="The user presses Stop and redirects the agent to a short reply; nothing writes after Stop.",
    criteria=(
        Criterion(
            id="answers-new-direction",
            text="After Stop, the person asked for something new. Does the agent's new answer do what that new request"
            " asks, rather than carry on with (or report on) the work it was stopped in?",
            evidence=(
                EvidenceNeed(
                    path="snapshots/short-reply.json", field="request", role="reference", label="the new request"
                ),
                EvidenceNeed(
                    path="snapshots/short-reply.json", field="reply", role="agent_text", label="the agent's new answer"
                ),
            ),
        ),
    ),
)


def story(journey: Journey) -> None:
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    stopped = stop_active_work(journey, task, source=SOURCE_FILE, more_work=REVISION_SEPARATOR)
    after_stop = journey.record_workspace_hashes(task, "after stop")

    nonce = journey.fresh_nonce()
    request = nonce_request(nonce)
    journey.send_message(request)
    journey.wait_until_finished(task, "the short reply")
    require_short_reply(journey, task, stopped, request, nonce, unchanged_since=after_stop)
