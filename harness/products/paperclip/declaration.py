"""What Paperclip brings through the product door: its environment, what the driver can do, what Paperclip exposes.

Paperclip is a product we did not write: each capability it lacks says why
(its release has no such feature, or the driver does not wire it yet), and
its known findings are defects in its own code, each with a standalone
reproduction beside this module (:mod:`.findings`).
"""

from __future__ import annotations

from harness.core.catalog import Environment, KnownFinding, ProductDeclaration, ProductSuites

PAPERCLIP_LOCAL = Environment(
    name="paperclip-local",
    product="paperclip",
    fault_window_scale=15.0,
    shown_wait_s=30.0,
    scripted_deadline_scale=3.0,
    description="The real Paperclip (pinned npm release) on this machine; its process adapter runs the scripted agent.",
)

NOT_IN_RELEASE = "the pinned release (2026.824.1) has no such feature"

PRODUCT = ProductDeclaration(
    name="paperclip",
    title="Paperclip",
    driver="harness.products.paperclip:DRIVER",
    environments=(PAPERCLIP_LOCAL,),
    suites=ProductSuites(scripted="everyday-workflows-paperclip", replay="everyday-workflows-paperclip-replay"),
    replay_clis=("codex", "claude"),
    capabilities=("delegation", "controller-restart", "stop"),
    lacks={
        "services": "the driver does not wire Paperclip's Ask-first apps (tool connections and approval cards) yet",
        "hiring": "the driver does not wire Paperclip's New agent page and its Apps access bindings yet",
        "skills": "the driver does not wire Paperclip's company skills and Skill Studio yet",
        "providers": f"{NOT_IN_RELEASE}: no aggregator routing or provider catalog",
        "chat-connectors": f"{NOT_IN_RELEASE}: no chat connectors or email card",
        "connection-requests": f"{NOT_IN_RELEASE}: an agent can ask to authorise only a connection that exists",
    },
    # No "message-read": Paperclip records which runs a comment woke, never that a run read it.
    # No "process-group-gone": its API says a run was cancelled, not that its processes exited.
    # "run-cause": the reason Paperclip woke the agent for each run (api.py: WAKE_CAUSES).
    observes=("message-wakes", "runner-identity", "receipts", "run-cause"),
    not_yet={
        "replay-*.delegate-feedback": "the replay decides to delegate from the testbed's briefing",
        "replay-*.recover-controller": "the replay's pause is not yet served as model thinking time",
        "replay-*.stop-redirect": "the replay's pause is not yet served as model thinking time",
    },
    known_findings=(
        KnownFinding(
            case="recover-controller",
            checks=(
                "restart.runner-kept-going",
                "restart.same-run",
                "restart.message-survived",
                "restart.message-received",
            ),
            may_also_fail=("lifecycle.runs-succeeded", "lifecycle.tasks-done", "lifecycle.settled"),
            what="its shutdown ends the process adapter's runner; the run is recorded succeeded or failed by a race",
            reproduction="null_exit_code_succeeds",
        ),
        KnownFinding(
            case="recover-controller-sigkill",
            checks=("restart.same-run", "restart.message-received", "lifecycle.runs-succeeded"),
            may_also_fail=("restart.records-once",),
            what="the new server reaps the live run process_lost and a new run redoes the work",
            reproduction="reaper_ignores_live_pid",
        ),
        KnownFinding(
            case="stop-redirect",
            checks=("stop.nothing-ran-after-stop",),
            may_also_fail=("stop.reply-has-nonce", "stop.workspace-unchanged", "stop.run-cancelled"),
            what="Cancel kills the process before recording the cancellation: the run ends succeeded and a corrective"
            " run carries on the stopped work",
            reproduction="cancel_starts_new_run",
        ),
    ),
)
