"""After a server crash, the start-up reaper marks a live `process` run `process_lost`, then accepts its delivery.

Steps (public API and plain OS process control only): a `process` agent's
run waits for a go-ahead, then uploads a ZIP to its issue with the run's own
token (`PAPERCLIP_API_KEY`); an issue is assigned to it, so Paperclip starts
the run; the server is killed with SIGKILL (a crash, an OOM kill) and
started again on the same data. The run's process (its recorded
`processPid`) is still alive. Once the new server's start-up reap is over,
the run is given its go-ahead.

Expected: the reaper checks the recorded pid before declaring the run lost,
as it does for Paperclip's sessioned adapters ("Lost in-memory process
handle, but child pid N is still alive"); or, having declared it lost, stops
it and no longer accepts its writes.

Run: `python reproduce.py` (exit 1: reproduced; 0: not reproduced; 2: could not run).
"""

from __future__ import annotations

import signal
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from isolated_paperclip import Paperclip, main, pid_alive, summary, wait_for  # noqa: E402

# $0 is the instance folder. Each run waits for its own go-ahead file (which names the issue), then delivers a ZIP
# with its run token and marks the issue done, as a finished agent does; what Paperclip answered (HTTP status of the
# upload, then of the status change) lands in answer-<run>.
AGENT = r"""
run="$PAPERCLIP_RUN_ID"
while [ ! -s "$0/go-$run" ]; do sleep 0.2; done
issue=$(cat "$0/go-$run")
api="$PAPERCLIP_API_URL/api"
upload=$(curl -s -o "$0/upload-$run.json" -w '%{http_code}' \
  -H "Authorization: Bearer $PAPERCLIP_API_KEY" -H "X-Paperclip-Run-Id: $run" \
  -F "file=@$0/delivery.zip;type=application/zip" "$api/companies/$PAPERCLIP_COMPANY_ID/issues/$issue/attachments")
done=$(curl -s -o /dev/null -w '%{http_code}' -X PATCH \
  -H "Authorization: Bearer $PAPERCLIP_API_KEY" -H "X-Paperclip-Run-Id: $run" \
  -H "Content-Type: application/json" -d '{"status": "done"}' "$api/issues/$issue")
echo "$upload $done" > "$0/answer-$run.part" && mv "$0/answer-$run.part" "$0/answer-$run"
"""


def deliver(paperclip: Paperclip, run_id: str, issue: str) -> str:
    """Give one run its go-ahead; the HTTP status Paperclip answered its upload."""
    (paperclip.root / f"go-{run_id}").write_text(issue)
    answer = paperclip.root / f"answer-{run_id}"
    upload, done = wait_for(f"run {run_id}'s delivery", lambda: answer.is_file() and answer.read_text().split())
    print(f"  run {run_id} delivered: upload HTTP {upload}, issue marked done HTTP {done}")
    if upload != "201":
        print(f"  Paperclip answered: {(paperclip.root / f'upload-{run_id}.json').read_text()[:400]}")
    return str(upload)


def reproduce(paperclip: Paperclip) -> tuple[bool, str]:
    with zipfile.ZipFile(paperclip.root / "delivery.zip", "w") as archive:
        archive.writestr("result.txt", "the work\n")
    agent = paperclip.process_agent("Builder", AGENT)
    issue = paperclip.assign_issue("Build the thing and attach it as a ZIP", agent)
    run = paperclip.started_run(issue)
    pid = run["processPid"]
    print(f"run {run['id']} is running as pid {pid}")

    paperclip.stop(signal.SIGKILL)
    print("killed the server with SIGKILL; starting it again on the same data")
    paperclip.start()
    after = paperclip.run(run["id"])
    alive = pid_alive(pid)
    print(f"after the start-up reap: {summary(after)}; error={after.get('error')!r}")
    print(f"pid {pid} alive (OS): {alive}")
    reaped_alive = after["status"] == "failed" and after.get("errorCode") == "process_lost" and alive

    # Paperclip may start a new run for the issue (the retry of the "lost" one): it does the work first.
    for other in [r for r in paperclip.runs(issue) if r["id"] != run["id"]]:
        print(f"Paperclip started another run for the issue: {other['id']}")
        paperclip.started_run(issue, other["id"])
        deliver(paperclip, other["id"], issue)
        ended = paperclip.ended_run(other["id"])
        print(f"  it ended: {summary(ended)}")
    print(f"the reaped run's process {pid} now delivers")
    late = deliver(paperclip, run["id"], issue)
    zips = len(paperclip.get(f"/api/issues/{issue}/attachments"))
    print(f"the issue has {zips} ZIP attachment(s)")
    accepted = late == "201"

    if reaped_alive and accepted:
        return True, (
            f"the run was recorded failed/process_lost ({after.get('error')!r}) while pid {pid} was alive, and "
            f"Paperclip then accepted its ZIP ({zips} on the issue); expected: the live pid kept (or stopped, and its "
            "writes refused)"
        )
    return False, f"reaped while alive: {reaped_alive}; late upload accepted: {accepted} (HTTP {late})"


if __name__ == "__main__":
    main("Finding: the start-up reaper ignores a process run's live pid (and accepts its late delivery)", reproduce)
