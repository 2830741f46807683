"""A provider with a native connector gets its connection card, not a provider question.

The company has no connections. A person asks the lead for work in Jira,
which the product connects natively. They find one request to connect Jira
waiting for them (no question about outside providers) and click Not now.
Afterwards their answer is saved, no connection exists, the lead has not
asked again, no provider question was ever opened, the lead said why it
could not do the work, and the task is done.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.decisions.connection import require_intent_outcome, require_no_connections, require_pending_intent
from harness.decisions.contract import ISSUES_TASK_TITLE, JIRA, issues_task
from harness.decisions.providers import PROVIDER_PACE_S, PROVIDER_RUNS, require_native_outcome
from harness.decisions.requests import decide
from harness.running.journey import Journey

CASE = Case(
    name="provider-native",
    needs=("providers",),
    replay=False,
    scripted_deadline_s=90,
    max_run_records=PROVIDER_RUNS,
    scripted_pace_s=PROVIDER_PACE_S,
    description="Jira has a native connector: its card directly, no provider question; Not now, nothing made.",
)


def story(journey: Journey) -> None:
    before = require_no_connections(journey)
    task = journey.create_task(ISSUES_TASK_TITLE, issues_task(JIRA))
    card = require_pending_intent(journey, task, JIRA)
    decision = decide(journey, card, approve=False)
    require_intent_outcome(journey, task, JIRA, before, decision)
    require_native_outcome(journey, task, JIRA)
