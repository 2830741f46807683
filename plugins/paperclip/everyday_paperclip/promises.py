"""What Paperclip documents about runs, restarts, comments and budgets: the promises our stories hold it to, with sources.

A verdict about a product we did not write is a claim about its code, so a
story holds Paperclip only to what Paperclip itself says it does. Each
promise names where it is written: a file and function of the pinned
release (paths relative to its ``node_modules``; see :mod:`.install`) or a
line of its CLI's help. ``applies_to`` lists the Paperclip adapter types the
promise covers (empty: every adapter). ``CONTRADICTED`` names the checks
whose assumption a documented behaviour rules out: a failure of one of them
on Paperclip is our assumption, not Paperclip's defect.

This module is data: the product's declaration carries the promises, the
faults name a promise's id in the checks they record
(``CheckRecord.promise``).
"""

from __future__ import annotations

from harness.core.catalog import Promise

SERVER = "@paperclipai/server/dist"
CLI = "paperclipai/dist/index.js"
# Paperclip's own list of adapters whose runs are local child processes it tracks (and can adopt after a restart).
SESSIONED_LOCAL_ADAPTERS = (
    "claude_local",
    "codex_local",
    "cursor",
    "gemini_local",
    "hermes_local",
    "opencode_local",
    "pi_local",
)


HOT_RESTART = Promise(
    id="hot-restart-preserves-runs",
    statement="`paperclipai service restart` hot-restarts the service while preserving active agent runs: it "
    "writes a hot-restart intent naming the running server, the service manager sends that server SIGTERM and "
    "starts it again, the old server leaves each running run's child process alive and snapshots it, and the "
    "new server adopts every run whose process is still alive",
    source=f"{CLI}: registerServiceCommands ('service restart' help: \"Hot-restart the service while preserving "
    f'active agent runs"), restartManagedService, writeHotRestartIntent; {SERVER}/services/heartbeat.js: '
    "prepareHotRestartShutdown, reconcileHotRestartAdoption (skips a run whose adapter is not in "
    "SESSIONED_LOCAL_ADAPTERS: adapter_not_local_child_process; drains one bound to the server's stdio: "
    "isServerStdioBoundHotRestartRun)",
    applies_to=SESSIONED_LOCAL_ADAPTERS,
)

SIGTERM_DRAIN = Promise(
    id="sigterm-drains-runs",
    statement="a plain SIGTERM (no hot-restart intent) is a graceful drain: the server terminates each running "
    "run's process, marks the run interrupted ('Interrupted by graceful server shutdown (SIGTERM); retry queued "
    "for restart recovery') and the work is retried once the server is back (by that retry, or by the restart "
    "recovery that takes up an issue nothing runs)",
    source=f"{SERVER}/index.js: the SIGINT/SIGTERM shutdown handler (drainHeartbeatRunsForShutdown unless a "
    f"hot restart was prepared); {SERVER}/services/heartbeat.js: drainRunningRunsForShutdown "
    f"(errorCode server_shutdown_interrupted), enqueueProcessLossRetry; {SERVER}/services/recovery/service.js: "
    "reconcileStrandedAssignedIssues (at start-up and on every scheduler tick)",
)

COMMENT_WAKE = Promise(
    id="comment-reaches-assignee",
    statement="a comment on an issue reaches its assignee's work: it wakes the assignee with the comment ('New "
    "comments in order'); one that arrives while the assignee's run is running gets a new run boundary (a "
    "follow-up run once the running one ends) instead of joining that run",
    source=f'{SERVER}/services/heartbeat.js: shouldDeferFollowupWakeForSameIssue ("A comment follow-up ... needs '
    'a new run boundary"); @paperclipai/adapter-utils/dist/server-utils.js: renderPaperclipWakePrompt',
)

PAUSE_CANCELS = Promise(
    id="pause-cancels-active-runs",
    statement="pausing an agent (a board action) sets it paused and cancels its active runs, killing their "
    "processes ('Cancelled due to agent pause'); a paused agent is not invokable, so no wake starts a run of it "
    "until it is resumed; a terminated agent takes no work (assigning work to it is refused)",
    source=f"{SERVER}/routes/agents.js: POST /agents/:id/pause (svc.pause, then heartbeat.cancelActiveForAgent); "
    f"{SERVER}/services/heartbeat.js: cancelActiveForAgentInternal; {SERVER}/services/agent-invokability.js: "
    f"DIRECT_NON_INVOKABLE_STATUSES; {SERVER}/services/agent-assignability.js: "
    '"Cannot assign work to terminated agents"',
)

BUDGET_HARD_STOP = Promise(
    id="budget-hard-stop-pauses-agent",
    statement="an agent's monthly budget is a hard stop over the cost its runs report (\"When they hit the limit, "
    "they stop\"): the cost event that brings the agent's billed cents to its budget pauses the agent "
    "(pauseReason budget) and cancels its active runs and pending wakes ('Cancelled due to budget pause'), no run of "
    "it starts while the hard stop stands, and Raise budget & resume lifts the pause. A local CLI adapter reports a "
    "run's cost once the run ends (claude_local: Claude Code's total_cost_usd), so its pause comes between runs; "
    "codex_local reports none (costUsd null, its usage 'unpriced'), so no budget stops a codex_local agent",
    source='paperclipai/README.md: "Monthly budgets per agent. When they hit the limit, they stop.", "Overspend '
    f'pauses agents and cancels queued work automatically"; {SERVER}/services/budgets.js: evaluateCostEvent, '
    f"pauseAndCancelScopeForBudget, getInvocationBlock, computeObservedAmount (billed_cents); "
    f"{SERVER}/services/heartbeat.js: updateRuntimeState (the run's cost event, once the adapter returns), "
    "cancelBudgetScopeWork, resolveLedgerCostStatus ('unpriced'); @paperclipai/adapter-claude-local/dist/server/"
    "parse.js: total_cost_usd; @paperclipai/adapter-codex-local/dist/server/execute.js: costUsd null",
    applies_to=("process", "claude_local"),
)

PROMISES: tuple[Promise, ...] = (HOT_RESTART, SIGTERM_DRAIN, COMMENT_WAKE, PAUSE_CANCELS, BUDGET_HARD_STOP)

# Checks whose assumption a promise's documented behaviour rules out on Paperclip: a failure of one there is our
# assumption, not Paperclip's defect (the restart checks' same-run premise is the hot restart's, not the drain's).
CONTRADICTED: dict[str, str] = {
    "lifecycle.messages-handed-once": COMMENT_WAKE.id,
}


def promise(promise_id: str) -> Promise:
    """The promise by id; an unknown id is a programming error, named."""
    try:
        return next(p for p in PROMISES if p.id == promise_id)
    except StopIteration:
        raise KeyError(f"Paperclip documents no promise {promise_id!r}; known: {[p.id for p in PROMISES]}") from None
