"""A graceful shutdown (SIGTERM) records a run it cut short as the agent's own failure, and queues it no retry.

Steps (public API and plain OS process control only): a `process` agent
works for ten minutes the way a CLI agent does: its main process exits with
an error when it is terminated (as Claude Code does), while a helper it
started (a tool, an MCP server) takes three seconds over its own clean-up;
an issue is assigned to it, so Paperclip starts a run; once the agent is at
work the server gets a plain SIGTERM (no hot-restart intent) and is started
again on the same data.

Expected (Paperclip's drain, `drainRunningRunsForShutdown`): the run is
recorded `interrupted` ("Interrupted by graceful server shutdown (SIGTERM);
retry queued for restart recovery") and a `process_lost_retry` run of it is
queued, which the new server starts.

Run: `python reproduce.py` (exit 1: reproduced; 0: not reproduced; 2: could not run).
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from isolated_paperclip import Paperclip, main, summary, wait_for  # noqa: E402

# $0 is the instance folder (kept on both command lines for teardown). The helper shares the run's process group,
# so the drain's SIGTERM to the group reaches both; its output goes nowhere, so the run's pipes close with the main
# process, as they do when a CLI exits before the tools it started.
HELPER = (
    "import signal, sys, time; signal.signal(signal.SIGTERM, lambda *_: (time.sleep(3), sys.exit(0))); time.sleep(600)"
)
MAIN = (
    "import signal, subprocess, sys, time;"
    f" subprocess.Popen([sys.executable, '-c', {HELPER!r}, sys.argv[1]], stdin=subprocess.DEVNULL,"
    " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL);"
    " signal.signal(signal.SIGTERM, lambda *_: sys.exit(143));"
    " open(sys.argv[1] + '/at-work', 'w').close();"
    " time.sleep(600)"
)
AGENT = f'exec python3 -c "{MAIN}" "$0"'
DRAIN_RETRY = "process_lost_retry"  # the wake reason of the retry the drain queues (enqueueProcessLossRetry)
# Paperclip's restart recovery takes an issue nothing runs up again as the server starts and every 30 s after:
# what it does is shown, though the drain's own promise is what is judged.
WATCH_S = 40.0


def described(run: dict[str, Any]) -> str:
    wake = (run.get("contextSnapshot") or {}).get("wakeReason")
    return f"{run['id']} (wake {wake!r}, started {run.get('startedAt')}): {summary(run)}, error={run.get('error')!r}"


def reproduce(paperclip: Paperclip) -> tuple[bool, str]:
    agent = paperclip.process_agent("Builder", AGENT, grace_sec=10)
    issue = paperclip.assign_issue("Work that a graceful shutdown cuts short", agent)
    run = paperclip.started_run(issue)
    wait_for("the agent to be at work", (paperclip.root / "at-work").is_file)
    print(f"run {run['id']} is at work as pid {run['processPid']} (process group {run.get('processGroupId')})")

    paperclip.stop(signal.SIGTERM)
    stopped_at = time.strftime("%H:%M:%S", time.gmtime())
    print(
        f"sent the server SIGTERM (no hot-restart intent), which drains; it exited at {stopped_at}; starting it again"
    )
    paperclip.start()
    drained = paperclip.run(run["id"])
    print(f"  the drained run: {summary(drained)}; error={drained.get('error')!r}")
    time.sleep(WATCH_S)
    others = [r for r in paperclip.runs(issue) if r["id"] != run["id"]]
    for other in others:
        print(f"  another run of the issue: {described(other)}")
    retries = [r for r in others if (r.get("contextSnapshot") or {}).get("wakeReason") == DRAIN_RETRY]
    print(f"  {len(retries)} retry run(s) queued by the drain ({DRAIN_RETRY})")

    if drained["status"] != "interrupted" and not retries:
        return True, (
            f"the drain signalled the run's process and the run's own end was recorded first, as the agent's failure "
            f"({drained['status']}, {drained.get('errorCode')}: {drained.get('error')!r}); the drain then skipped it "
            f"and queued no retry; expected: interrupted (server_shutdown_interrupted), with a {DRAIN_RETRY} run"
        )
    return (
        False,
        f"the drained run is {drained['status']} ({drained.get('errorCode')}), with {len(retries)} retry run(s)",
    )


if __name__ == "__main__":
    main("Finding: the graceful drain records a run it cut short as the agent's failure, with no retry", reproduce)
