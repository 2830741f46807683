"""Late feedback: the step that proves it landed, and who did what with it.

To a delegated worker, the feedback counts as late only if it was stored
while the teammate's run was still going. To the one agent at work, the
product may take it into the running run or only once the run has ended (a
follow-up that resumes the session); the evidence says which. The lead's final word counts only if it names the child's
*final* delivery (by sha256 or by delivery id): a lead that reports an
earlier ZIP, or reports before the child is done, told the user something untrue.
"""

from __future__ import annotations

import re
from datetime import datetime

from harness.core.product_records import Agent, Comment, RecordId, Run, Task
from harness.core.records import CheckRecord
from harness.judging.observations import judge
from harness.running.journey import Journey


def require_arrived_while_active(journey: Journey, run: Run, message: Comment) -> None:
    """The message must have been stored while ``run`` was still going, or the premise was missed."""
    current = journey.api.run(run.id)
    if current.ended_at and datetime.fromisoformat(current.ended_at) < datetime.fromisoformat(message.created_at):
        journey.ended_before(current, "the feedback arrived")
    journey.evidence.note(
        "feedback landed", f"message {message.id} stored while run {run.id} was {current.status}", kind="fault"
    )


def note_arrival(journey: Journey, run: Run, message: Comment) -> None:
    """Say in the evidence whether the feedback reached the running run or came after it, as a follow-up.

    Both are the product's way to take it; which one decides nothing (the
    final delivery does), but a reader of the package should see which it was.
    """
    current = journey.api.run(run.id)
    after = current.ended_at and datetime.fromisoformat(current.ended_at) < datetime.fromisoformat(message.created_at)
    when = f"after run {run.id} ended {current.status} (a follow-up)" if after else f"while run {run.id} was running"
    journey.evidence.note("feedback landed", f"message {message.id} stored {when}", kind="fault")


def require_delegation(journey: Journey, parent: Task, teammate: Agent, feedback: str) -> None:
    """One child for the teammate, the feedback in the child only, and a true final report by the lead."""
    current = journey.api.task(parent.id)
    children = [journey.api.task(child.id) for child in current.children]
    mate = next(agent for agent in journey.api.agents() if agent.id == teammate.id)
    path = journey.evidence.snapshot("delegation", {"parent": current, "children": children, "teammate": mate})
    journey.record_checks(judge(delegation_checks, current, children, journey.lead, mate, feedback), [path])


def cites_delivery(text: str, delivery_id: RecordId, sha256: str) -> bool:
    return sha256 in text or re.search(rf"\bdelivery\s+#?{delivery_id}\b", text, re.IGNORECASE) is not None


def delegation_checks(
    parent: Task, children: list[Task], lead: Agent, teammate: Agent, feedback: str
) -> list[CheckRecord]:
    mine = [c for c in children if c.assignee_id == teammate.id]
    checks = [
        CheckRecord(
            id="delegate.teammate-reports-to-lead",
            passed=teammate.reports_to == lead.id and (teammate.adapter, teammate.model) == (lead.adapter, lead.model),
            detail=f"{teammate.name} reports to agent {teammate.reports_to} (lead {lead.id}) on "
            f"{teammate.adapter}/{teammate.model} (lead {lead.adapter}/{lead.model})",
        ),
        CheckRecord(
            id="delegate.one-child-for-teammate",
            passed=len(children) == 1 and len(mine) == 1,
            detail=f"{len(children)} child task(s), {len(mine)} assigned to {teammate.name}",
        ),
        CheckRecord(
            id="delegate.teammate-never-on-parent",
            passed=parent.assignee_id == lead.id and all(r.agent_id != teammate.id for r in parent.runs),
            detail=f"parent assigned to agent {parent.assignee_id}; runs on it by agents {sorted({r.agent_id for r in parent.runs}, key=str)}",
        ),
    ]
    child = mine[0] if len(mine) == 1 else None
    checks.append(_feedback_check(parent, child, feedback))
    checks.append(_reply_check(parent, child))
    return checks


def _feedback_check(parent: Task, child: Task | None, feedback: str) -> CheckRecord:
    """Stored once, in the child's history only, and read by a child run that succeeded."""
    check_id = "delegate.feedback-in-child"
    if child is None:
        return CheckRecord(id=check_id, passed=False, detail="no single child task to look in")
    in_child = [c for c in child.user_messages() if c.body.strip() == feedback.strip()]
    in_parent = [c for c in parent.user_messages() if c.body.strip() == feedback.strip()]
    consumer = next((r for r in child.runs if in_child and r.id == in_child[0].consumed_by_run_id), None)
    passed = len(in_child) == 1 and not in_parent and consumer is not None and consumer.status == "succeeded"
    who = f"run {consumer.id} ({consumer.status})" if consumer else "no child run"
    detail = f"stored {len(in_child)}x in child {child.id}, {len(in_parent)}x in the parent; read by {who}"
    return CheckRecord(id=check_id, passed=passed, detail=detail)


def _reply_check(parent: Task, child: Task | None) -> CheckRecord:
    check_id = "delegate.reply-cites-final-delivery"
    if child is None or not child.deliveries:
        return CheckRecord(id=check_id, passed=False, detail="the child has no delivery to cite")
    replies = parent.agent_replies()
    if not replies:
        return CheckRecord(id=check_id, passed=False, detail="the lead never replied on the parent")
    final, text = child.deliveries[-1], replies[-1].body
    earlier = [d.id for d in child.deliveries[:-1] if cites_delivery(text, d.id, d.sha256)]
    passed = cites_delivery(text, final.id, final.sha256) and not earlier
    detail = (
        f"the lead's final reply cites delivery {final.id} ({final.sha256[:12]})"
        if passed
        else f"the lead's final reply does not cite final delivery {final.id} ({final.sha256[:12]})"
        + (f" but earlier {earlier}" if earlier else "")
    )
    return CheckRecord(id=check_id, passed=passed, detail=detail)
