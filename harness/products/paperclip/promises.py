"""What Paperclip documents about runs, restarts and comments: the promises our stories hold it to, with sources.

A verdict about a product we did not write is a claim about its code, so a
story holds Paperclip only to what Paperclip itself says it does. Each
promise names where it is written: a file and function of the pinned
release (paths relative to its ``node_modules``; see :mod:`.install`) or a
line of its CLI's help. ``applies_to`` lists the Paperclip adapter types the
promise covers (empty: every adapter). ``checks`` are the harness checks
that hold Paperclip to it; ``contradicts`` are checks whose assumption the
documented behaviour rules out, so a failure of one of them on Paperclip is
our assumption, not Paperclip's defect.

This module is data: the driver's declaration reads it, the faults name a
promise's id in the checks they record.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

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


class ProductPromise(BaseModel):
    """One thing the product documents it does, where it says so, and which checks hold it to that."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")
    statement: str = Field(min_length=1)
    source: str = Field(min_length=1, description="file and function (or CLI help text) of the pinned release")
    applies_to: tuple[str, ...] = Field(default=(), description="the product's adapter types; empty: every adapter")
    checks: tuple[str, ...] = Field(default=(), description="harness checks that hold the product to this promise")
    contradicts: tuple[str, ...] = Field(
        default=(), description="harness checks whose assumption this documented behaviour rules out"
    )

    def covers(self, adapter_type: str) -> bool:
        return not self.applies_to or adapter_type in self.applies_to


HOT_RESTART = ProductPromise(
    id="paperclip.hot-restart-preserves-runs",
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
    checks=(
        "restart.controller-replaced",
        "restart.runner-kept-going",
        "restart.same-run",
        "restart.message-survived",
        "restart.message-received",
        "restart.receipts-once",
        "restart.receipt-prefix",
        "restart.records-once",
    ),
)

SIGTERM_DRAIN = ProductPromise(
    id="paperclip.sigterm-drains-runs",
    statement="a plain SIGTERM (no hot-restart intent) is a graceful drain: the server terminates each running "
    "run's process, marks the run interrupted ('Interrupted by graceful server shutdown (SIGTERM); retry queued "
    "for restart recovery') and the work is retried once the server is back",
    source=f"{SERVER}/index.js: the SIGINT/SIGTERM shutdown handler (drainHeartbeatRunsForShutdown unless a "
    f"hot restart was prepared); {SERVER}/services/heartbeat.js: drainRunningRunsForShutdown "
    "(errorCode server_shutdown_interrupted)",
    checks=(
        "restart.controller-replaced",
        "drain.run-interrupted",
        "drain.work-retried",
        "drain.message-received",
        "drain.delivered-once",
    ),
    contradicts=("restart.runner-kept-going", "restart.same-run"),
)

COMMENT_WAKE = ProductPromise(
    id="paperclip.comment-reaches-assignee",
    statement="a comment on an issue reaches its assignee's work: it wakes the assignee with the comment ('New "
    "comments in order'); one that arrives while the assignee's run is running gets a new run boundary (a "
    "follow-up run once the running one ends) instead of joining that run",
    source=f'{SERVER}/services/heartbeat.js: shouldDeferFollowupWakeForSameIssue ("A comment follow-up ... needs '
    'a new run boundary"); @paperclipai/adapter-utils/dist/server-utils.js: renderPaperclipWakePrompt',
    checks=("lifecycle.messages-acted-once", "delegate.feedback-in-child"),
    contradicts=("lifecycle.messages-handed-once",),
)

PROMISES: tuple[ProductPromise, ...] = (HOT_RESTART, SIGTERM_DRAIN, COMMENT_WAKE)


def promise(promise_id: str) -> ProductPromise:
    """The promise by id; an unknown id is a programming error, named."""
    try:
        return next(p for p in PROMISES if p.id == promise_id)
    except StopIteration:
        raise KeyError(f"Paperclip documents no promise {promise_id!r}; known: {[p.id for p in PROMISES]}") from None
