"""What each everyday story's passing attempt must show, whichever agent ran it: the named checks that
must pass and the snapshots its package must keep (the scripted and the replay cells share them)."""

from __future__ import annotations

BUILD_REVISE_CHECKS = [
    "oracle.build",
    "oracle.revision",
    "delivery.revision-differs",
    "delivery.redownload-identical",
    "lifecycle.tasks-done",
    "lifecycle.messages-consumed",
    "readback.stored",
    "readback.untouched",
]
RESTART_SNAPSHOTS = ("restart-{sig}-before", "restart-{sig}-after", "restart-{sig}-final")
FAULT_STORIES: dict[str, dict[str, list[str]]] = {
    "delegate-feedback": {
        "snapshots": ["delegation", "tasks"],
        "checks": [
            "oracle.child",
            "delegate.one-child-for-teammate",
            "delegate.feedback-in-child",
            "delegate.teammate-never-on-parent",
            "delegate.reply-cites-final-delivery",
            "lifecycle.parent-after-child",
            "lifecycle.parent-owned-by-lead",
        ],
    },
    "late-feedback": {
        "snapshots": [],
        "checks": ["oracle.final", "lifecycle.messages-consumed", "lifecycle.tasks-done"],
    },
    "recover-controller": {
        "snapshots": [name.format(sig="sigterm") for name in RESTART_SNAPSHOTS],
        "checks": [
            "oracle.final",
            "restart.same-run",
            "restart.runner-kept-going",
            "restart.message-survived",
            "restart.receipts-once",
            "restart.receipt-prefix",
        ],
    },
    "recover-controller-sigkill": {
        "snapshots": [name.format(sig="sigkill") for name in RESTART_SNAPSHOTS],
        "checks": ["oracle.final", "restart.same-run", "restart.runner-kept-going", "restart.receipt-prefix"],
    },
    "recover-controller-drain": {
        "snapshots": ["drain-before", "drain-after", "drain-final"],
        "checks": [
            "oracle.final",
            "restart.controller-replaced",
            "drain.run-interrupted",
            "drain.work-retried",
            "drain.message-received",
            "drain.delivered-once",
        ],
    },
    "stop-redirect": {
        "snapshots": ["stop", "workspace-after-stop", "workspace-after-reply"],
        "checks": [
            "stop.process-group-gone",
            "stop.request-stored-once",
            "stop.reply-has-nonce",
            "stop.no-earlier-run-active",
            "stop.workspace-unchanged",
            "lifecycle.runs-succeeded",
        ],
    },
}
