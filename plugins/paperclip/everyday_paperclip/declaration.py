"""What Paperclip brings through the product door: its environment, what the driver can do, what Paperclip exposes.

Paperclip is a product we did not write: each capability it lacks says why
(its release has no such feature, or the driver does not wire it yet), and
its known findings are defects in its own code, each with a standalone
reproduction beside this module (:mod:`.findings`).
"""

from __future__ import annotations

from everyday_paperclip.promises import HOT_RESTART, PROMISES
from harness.core.catalog import Environment, KnownFinding, NoCell, ProductDeclaration, ProductSuites
from harness.core.prompt_formats import PromptFormat
from harness.core.signatures import FailureSignature, every_problem

PAPERCLIP_LOCAL = Environment(
    name="paperclip-local",
    product="paperclip",
    fault_window_scale=15.0,
    shown_wait_s=30.0,
    scheduler_tick_s=30.0,  # HEARTBEAT_SCHEDULER_INTERVAL_MS's default, which the instance keeps
    scripted_deadline_scale=3.0,
    description="The real Paperclip (pinned npm release) on this machine; its process adapter runs the scripted agent.",
)

NOT_IN_RELEASE = "the pinned release (2026.824.1) has no such feature"
# What may follow a drain that lost its race: whether Paperclip's restart recovery took the work up, and how, by then.
DRAIN_AFTERMATH = (
    "drain.work-retried",
    "drain.message-received",
    "drain.delivered-once",
    "lifecycle.tasks-done",
    "lifecycle.settled",
    "lifecycle.no-pending-bookkeeping",
)

# The comment queued across the restart, in no receipt of the run afterwards (one read before it is another defect).
LATE_COMMENT_NEVER_READ = r"^no read receipt of run \S+ lists message \S+ after the restart$"
# A run Paperclip starts on a cancelled issue, as stop.nothing-ran-after-stop prints it.
UNINVITED_RUN = r"run \S+ \(\w+, cause (not stated|handoff), \d+ delivery\(ies\)\)"
# A run Paperclip started by itself, as lifecycle.runs-have-a-cause prints it: a missing-comment follow-up's wake
# reason states no cause; a continuation's is a hand-off from the agent's own earlier run, not another agent's.
UNCAUSED_RUN = (
    r"(the product declared run-cause; run \S+ on task \S+ has none|run \S+ on task \S+ \(\w+, delivered [^()]*,"
    r" cause handoff\): started as a hand-off, but no earlier run of another agent on its task handed it on)"
)


# Its wake prompt lists the comments that woke the run after "New comments in order:", each as "N. comment <id> at
# <time> by user <id>" (an agent's: "by agent") with its body on the lines below; a wake for the issue alone names it
# ("- issue: PREFIX-1 title") without its request.
PROMPTS = PromptFormat(
    comments_heading="New comments in order:",
    comment=r"^\d+\. comment (?P<id>\S+) at \S+ by (?P<author>user|agent)\b[^\n]*\n(?P<body>.*?)"
    r"(?=\n\d+\. comment \S+ at |\n\n|\Z)",
    names_item_only=r"^- issue: \S+",
)

PRODUCT = ProductDeclaration(
    name="paperclip",
    prompts=PROMPTS,
    title="Paperclip",
    driver="everyday_paperclip:DRIVER",
    environments=(PAPERCLIP_LOCAL,),
    suites=ProductSuites(scripted="everyday-workflows-paperclip", replay="everyday-workflows-paperclip-replay"),
    replay_clis=("codex", "claude"),
    capabilities=(
        "delegation",
        "controller-restart",
        "graceful-drain",
        "stop",
        "services",
        "hire-approval",
        "agent-controls",
        "routines",
        "budget-pause",
        "hiring",
        "skills",
    ),
    lacks={
        "providers": f"{NOT_IN_RELEASE}: no aggregator routing or provider catalog",
        "chat-connectors": f"{NOT_IN_RELEASE}: no chat connectors or email card",
        "connection-requests": f"{NOT_IN_RELEASE}: an agent can ask to authorise only a connection that exists",
    },
    # No "message-read": Paperclip records which runs a comment woke, never that a run read it.
    # No "process-group-gone": its API says a run was cancelled, not that its processes exited.
    # "run-cause": the reason Paperclip woke the agent for each run (api.py: WAKE_CAUSES).
    # No "task-skills": an issue's page lists no skills (its activity feed tells of a new one: skill_pages.py).
    observes=("message-wakes", "runner-identity", "receipts", "run-cause"),
    derives={
        "message-read": "the first run that received each comment, by its wake context or a read step in its log"
        " (api.py: _receivers); Paperclip records no reader of a comment itself",
        "unread-counter": "the user comments no run received (api.py: the task's unconsumed_user_messages)",
        "active-run-pointer": "the first of the issue's runs Paperclip reports active",
    },
    promises=PROMISES,
    no_cell={
        "replay-*.recover-controller-sigkill": NoCell(
            kind="not-promised",
            why="a SIGKILL is a crash, across which it promises its sessioned adapters' runs nothing: its start-up"
            " reaper leaves a run whose CLI still lives running, detached, with nothing reading the CLI's output"
            " (heartbeat.js reapOrphanedRuns: 'Lost in-memory process handle, but child pid N is still alive'), and"
            " only its periodic reaper, five minutes after the run's last update, ends it (hot-restart-preserves-runs"
            " is held on recover-controller)",
        ),
        "replay-codex.budget-stop": NoCell(
            kind="not-promised",
            why="its budgets stop an agent on the cost its runs report (budget-hard-stop-pauses-agent), and its"
            " codex_local adapter reports none: every run's usage is recorded 'unpriced' at 0 cents"
            " (adapter-codex-local execute.js: costUsd null), so no budget ever stops a codex_local agent",
        ),
        "scripted.recover-controller": NoCell(
            kind="not-promised",
            why=f"its hot restart ({HOT_RESTART.id}) keeps only its sessioned local adapters' runs, not the process"
            " adapter's (recover-controller-drain holds that cell to the SIGTERM drain)",
        ),
    },
    known_findings=(
        KnownFinding(
            case="recover-controller",
            profiles=("replay-codex", "replay-claude"),  # its hot restart is promised for these sessioned adapters
            checks=("restart.same-run", "restart.message-received"),
            may_also_fail=(
                "restart.message-survived",
                "invariant.done-while-active",
                "lifecycle.tasks-done",
                "lifecycle.settled",
                "lifecycle.runs-succeeded",
                "lifecycle.no-pending-bookkeeping",
            ),
            signatures=(
                # The adopted run (same identity, re-adopted) never ends succeeded: Codex's is terminalized, Claude
                # Code's end is never recorded; and no receipt of it lists the comment queued across the restart.
                FailureSignature(
                    check="restart.same-run",
                    pattern=r"-> (?!succeeded\b)\w+; identity unchanged \([^)]*\); re-adopted by the new controller$",
                ),
                FailureSignature(check="restart.message-received", pattern=LATE_COMMENT_NEVER_READ),
            ),
            what="the hot restart adopts the CLI's run, but the CLI's stdout is a pipe to the old server: Codex dies at"
            " its next write and the run is terminalized with no retry, the task left in progress; Claude Code carries"
            " on and finishes, and the adopted run's end is never recorded",
            reproduction="hot_restart_severs_cli_output",
        ),
        KnownFinding(
            case="recover-controller-sigkill",
            profiles=("scripted",),  # found on the process adapter (the replay cells are not promised)
            checks=("restart.same-run", "restart.message-received", "lifecycle.runs-succeeded"),
            may_also_fail=("restart.records-once",),
            signatures=(
                # The start-up reaper ends the live run failed (process_lost), so it never reads the late comment.
                # The same process all along (its pid alive), recorded failed and not adopted: a new process, or a run
                # the new server adopted, would be another defect.
                FailureSignature(
                    check="restart.same-run",
                    pattern=r"-> failed; identity unchanged \([^)]*\); NOT re-adopted by the new controller$",
                ),
                FailureSignature(check="restart.message-received", pattern=LATE_COMMENT_NEVER_READ),
                FailureSignature(
                    check="lifecycle.runs-succeeded", pattern=every_problem(r"run \S+ ended failed \(process_lost\)")
                ),
            ),
            what="the new server reaps the live run process_lost and a new run redoes the work",
            reproduction="reaper_ignores_live_pid",
        ),
        KnownFinding(
            case="stop-redirect",
            checks=("stop.nothing-ran-after-stop",),
            may_also_fail=(
                "stop.reply-has-nonce",
                "stop.workspace-unchanged",
                "stop.run-cancelled",
                "stop.no-earlier-run-active",
                "lifecycle.runs-have-a-cause",
            ),
            # Every uninvited run is the success path's follow-up (its wake reason, missing_issue_comment, is not
            # stated as a cause) or the continuation recovery (a hand-off).
            signatures=(
                FailureSignature(
                    check="stop.nothing-ran-after-stop",
                    pattern=every_problem(UNINVITED_RUN, lead="ran after Stop, uninvited: "),
                ),
                FailureSignature(check="lifecycle.runs-have-a-cause", pattern=every_problem(UNCAUSED_RUN)),
            ),
            what="after a board Cancel Paperclip starts a new run of the stopped agent on the same issue (its"
            " success path's follow-up or its continuation recovery, whichever wins a race), which carries on the"
            " stopped work",
            reproduction="cancel_starts_new_run",
        ),
        KnownFinding(
            case="recover-controller-drain",
            # The drain signals a run's process before it records the run, and keeps whatever end lands first. Where a
            # signalled child's null exit code is read as 0 (the process adapter, codex_local) that end is a success.
            profiles=("scripted", "replay-codex"),
            checks=("drain.run-interrupted",),
            may_also_fail=(*DRAIN_AFTERMATH, "lifecycle.runs-succeeded"),
            intermittent=True,
            # The drained run is recorded succeeded (its null exit code read as 0, the signal noted), not cut short, and
            # its runner is gone: a runner the drain left running would be another defect.
            signatures=(
                FailureSignature(
                    check="drain.run-interrupted",
                    pattern=r"^run \S+ ended succeeded \(None; \{[^}]*'exit_code': None, 'signal': 'SIG\w+'[^}]*\}\); its"
                    r" runner was stopped by the shutdown$",
                ),
            ),
            what="a process run killed by the drain's SIGTERM has a null exit code, read as 0: when the run's own end"
            " lands before the drain's, it is recorded succeeded and the drain queues no retry: the issue is left in"
            " progress, its late comment never handed over (nothing took it up within a minute of the restart)",
            reproduction="null_exit_code_succeeds",
        ),
        KnownFinding(
            case="recover-controller-drain",
            profiles=("replay-claude",),  # Claude Code exits with an error when terminated
            checks=("lifecycle.runs-succeeded",),
            may_also_fail=(*DRAIN_AFTERMATH, "lifecycle.runs-have-a-cause"),
            intermittent=True,
            # The drained run is the adapter's own failure, not interrupted; after it only the missing-comment runs its
            # end started mid-shutdown, which the new server reaps (drain_loses_to_run_end/REPORT.md).
            signatures=(
                FailureSignature(
                    check="lifecycle.runs-succeeded",
                    pattern=r"^run \S+ ended failed \(adapter_failed\)(; run \S+ ended failed \(process_lost\))*$",
                ),
                # The missing-comment run states no cause; the restart recovery's continuation is the agent's own.
                FailureSignature(check="lifecycle.runs-have-a-cause", pattern=every_problem(UNCAUSED_RUN)),
            ),
            what="the drain signals Claude Code before it records the run: when the CLI's exit is recorded first, the run"
            " is the adapter's own failure (adapter_failed), not interrupted, the drain queues no retry, and the run's"
            " ordinary end starts a missing-comment run mid-shutdown that the new server reaps process_lost (its"
            " restart recovery takes the issue up again)",
            reproduction="drain_loses_to_run_end",
        ),
        KnownFinding(
            case="service-decline",
            checks=("decision.declined-stays-declined",),
            may_also_fail=("service.no-call-after-decline",),
            # The card refuses the later approval; the review queue accepts it, and the request still reads declined.
            signatures=(
                FailureSignature(
                    check="decision.declined-stays-declined",
                    pattern=r": card 4\d\d, review queue 2\d\d; it now reads declined \(accepted by review queue\)$",
                ),
            ),
            what="rejecting an Approve tool action card leaves its action request pending in the Apps review queue,"
            " which still approves it and runs the declined call",
            reproduction="declined_action_still_approvable",
        ),
    ),
)
