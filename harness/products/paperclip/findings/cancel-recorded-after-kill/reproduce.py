"""A board operator's Cancel is recorded only after the run is killed: the run finishes `succeeded` first, and
Paperclip's successful-run handoff starts a new run that carries on the cancelled work.

Steps (public API only): a `process` agent runs `exec sleep 600`; an issue is
assigned to it, so Paperclip starts a run; the board cancels the run
(`POST /api/heartbeat-runs/:id/cancel`, what the UI's Cancel does).

Expected (the cancel route's own comment): the cancellation is stamped as
operator-initiated so that "Recovery reads this to stand down instead of ...
re-waking the agent the operator just stopped": the run is recorded
`cancelled`, and no run starts for the issue until someone asks for one.

Run: `python reproduce.py` (exit 1: reproduced; 0: not reproduced; 2: could not run).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from isolated_paperclip import Paperclip, main, summary, wait_for  # noqa: E402

AGENT = "exec sleep 600"
SETTLE_S = 10  # how long after the Cancel the issue is watched for a run nobody asked for


def reproduce(paperclip: Paperclip) -> tuple[bool, str]:
    agent = paperclip.process_agent("Worker", AGENT)
    issue = paperclip.assign_issue("Long work the operator will cancel", agent)
    run = wait_for("the run's process", lambda: next((r for r in paperclip.runs(issue) if r["processPid"]), None))
    print(f"run {run['id']} is running as pid {run['processPid']}; the board cancels it")
    answered = paperclip.post(f"/api/heartbeat-runs/{run['id']}/cancel")
    print(f"the cancel answered: {summary(answered)}")
    time.sleep(SETTLE_S)

    cancelled = paperclip.run(run["id"])
    print(f"{SETTLE_S} s later: {summary(cancelled)}")
    lifecycle = [e["message"] for e in paperclip.events(run["id"]) if e.get("eventType") == "lifecycle"]
    print(f"  its lifecycle events: {lifecycle}")
    after = [r for r in paperclip.runs(issue) if r["id"] != run["id"]]
    for other in after:
        reason = (other.get("contextSnapshot") or {}).get("wakeReason")
        print(f"  a run started after the Cancel: {other['id']} (wake reason {reason!r}): {summary(other)}")
    handoffs = [
        a for a in paperclip.activity() if a["action"] == "issue.successful_run_handoff_required" and a["runId"] == run["id"]
    ]
    for handoff in handoffs:
        print(f"  activity: {handoff['action']}: {handoff.get('details', {}).get('label')}")

    finished_succeeded = "run succeeded" in lifecycle
    if finished_succeeded or after:
        return True, (
            f"the cancelled run was finalized as succeeded (lifecycle {lifecycle}) and {len(after)} run(s) started "
            "for the issue after the Cancel; expected: the run recorded cancelled, and no run nobody asked for"
        )
    return False, f"the run ended {cancelled['status']} and no run started after the Cancel"


if __name__ == "__main__":
    main("Finding: Cancel kills the run before recording it; the run succeeds and a new run carries on", reproduce)
