"""A `process` run whose process is killed by a signal is recorded `succeeded`.

Steps (public API and plain OS process control only): a `process` agent works
for ten minutes; an issue is assigned to it, so Paperclip starts a run; the
run's process (its `processPid`) is killed, once with SIGTERM and once with
SIGKILL, as an operator, a supervisor or the kernel's OOM killer would. A
process killed by a signal did not finish its work: the run must not be
recorded `succeeded`.

Run: `python reproduce.py` (exit 1: reproduced; 0: not reproduced; 2: could not run).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from isolated_paperclip import LONG_WORK, Paperclip, main, summary  # noqa: E402


def reproduce(paperclip: Paperclip) -> tuple[bool, str]:
    outcomes = {}
    for sig in (signal.SIGTERM, signal.SIGKILL):
        agent = paperclip.process_agent(f"Sleeper {sig.name}", LONG_WORK)
        issue = paperclip.assign_issue(f"Work that a {sig.name} cuts short", agent)
        run = paperclip.started_run(issue)
        os.kill(run["processPid"], sig)
        print(f"killed the run's process {run['processPid']} with {sig.name}")
        ended = paperclip.ended_run(run["id"])
        print(f"  run {ended['id']}: {summary(ended)}")
        outcomes[sig.name] = ended["status"]
    succeeded = sorted(name for name, status in outcomes.items() if status == "succeeded")
    expected = "expected: failed (the process adapter's own rule: a non-zero exit is a failure)"
    if succeeded:
        return True, f"a run whose process was killed by {' and by '.join(succeeded)} is recorded succeeded; {expected}"
    return False, f"runs killed by a signal are recorded {outcomes}"


if __name__ == "__main__":
    main("Finding: a process run killed by a signal is recorded succeeded (null exit code read as 0)", reproduce)
