"""After a board operator's Cancel, Paperclip starts a new run of the stopped agent on the same issue.

Steps (public API only): a `process` agent works for ten minutes; an issue is
assigned to it, so Paperclip starts a run; the board cancels the run
(`POST /api/heartbeat-runs/:id/cancel`, what the UI's Cancel does); the issue
is watched for 10 s.

Expected (Paperclip's own rule, `isOperatorCancelledRun` in
`services/recovery/service.js`): while an operator-cancelled run is the latest
on an issue, "recovery stands down entirely: the operator deliberately
stopped the agent, and re-waking it ... would fight the human". No run should
start for the issue until someone asks for one.

Two paths lead there, and which one a Cancel takes is a race inside Paperclip:
the cancel kills the process before it records the cancellation, so either
the run's own completion is finalized first, as `succeeded` (a signal's null
exit code read as 0), and the success path queues a follow-up run; or the
cancellation is recorded first, and its release of the issue queues an
immediate `issue_continuation_needed` recovery run. Each run prints which.

Run: `python reproduce.py` (exit 1: reproduced; 0: not reproduced; 2: could not run).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from isolated_paperclip import LONG_WORK, Paperclip, main, summary  # noqa: E402

SETTLE_S = 10  # how long after the Cancel the issue is watched for a run nobody asked for


def reproduce(paperclip: Paperclip) -> tuple[bool, str]:
    agent = paperclip.process_agent("Worker", LONG_WORK)
    issue = paperclip.assign_issue("Long work the operator will cancel", agent)
    run = paperclip.started_run(issue)
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

    first = (
        "first finalized as succeeded (its success path ran)" if "run succeeded" in lifecycle else "recorded cancelled"
    )
    reasons = [(r.get("contextSnapshot") or {}).get("wakeReason") for r in after]
    if after:
        return True, (
            f"{len(after)} run(s) started for the issue after the Cancel (wake reasons {reasons}); the cancelled run was "
            f"{first}; expected: no run until someone asks for one"
        )
    return False, f"the cancelled run was {first} and no run started in the {SETTLE_S} s after the Cancel"


if __name__ == "__main__":
    main("Finding: after a board Cancel, Paperclip starts a new run of the stopped agent on the same issue", reproduce)
