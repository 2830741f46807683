"""`paperclipai service restart` adopts a `claude_local`/`codex_local` CLI run whose output is a pipe to the old server.

Steps (public API, Paperclip's own hot-restart intent file, plain OS process
control only): two `claude_local` agents on the CLI lane (`engine: "cli"`)
whose `command` is a stand-in for an agent CLI: it prints a stream-json line
every half second, as a CLI does while it works, falls quiet after three (as
a CLI does while its model thinks), and notes in a file of its own whether
each write went through. One exits when a write fails (as Codex does), the
other carries on and finishes its issue (as Claude Code does). An issue is
assigned to each, so Paperclip starts two runs. Then the hot restart
`paperclipai service restart` drives, without a service manager (this
reproduction has none): the CLI's intent file
(`<instance>/hot-restart-intent.json`, the fields its `writeHotRestartIntent`
writes, naming the running server's pid), SIGTERM to that server (what
systemd's or launchd's restart sends), and the server started again on the
same data. Then the stand-ins go on.

Expected ("Hot-restart the service while preserving active agent runs"): the
new server adopts the runs and they go on working: their output still has
somewhere to go, and their ends are recorded. Or Paperclip drains and retries
them, as it does the runs it knows are bound to the server's stdio. Actual:
adopted, each CLI's next write fails with EPIPE (its stdout was a pipe to the
old server); the run that exits on it is terminalized by the recovery
backstop and its issue is left in progress with nothing running. See
REPORT.md.

Run: `python reproduce.py` (exit 1: reproduced; 0: not reproduced; 2: could not run).
"""

from __future__ import annotations

import json
import signal
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from isolated_paperclip import Paperclip, main, pid_alive, summary, wait_for  # noqa: E402

# The stand-in CLI: it ignores Claude Code's arguments but the instance folder (which also marks it for teardown) and
# its mode, writes a stream-json event every half second, falls quiet after QUIET_AFTER events until a go-<run> file
# appears (a CLI is quiet while its model thinks: the restart lands then), and notes each write's fate in
# cli-<run>.log. Mode "dies": a failed write ends it with status 1, as Codex does. Mode "survives": it carries on
# without its output, as Claude Code does, finishes the work (the issue named in the go file set done with the
# run's own token, as an agent does) and exits 0.
STAND_IN = r"""#!/usr/bin/env python3
import json, os, sys, threading, time, urllib.request
flags = dict(a[2:].split("=", 1) for a in sys.argv if a.startswith("--repro-"))
root, mode = flags["repro-instance"], flags["repro-mode"]
run = os.environ.get("PAPERCLIP_RUN_ID", "unknown")
journal = os.path.join(root, "cli-%s.log" % run)
go = os.path.join(root, "go-%s" % run)
def note(line):
    with open(journal, "a") as out:
        out.write(line + "\n")
if not sys.stdin.closed:
    threading.Thread(target=sys.stdin.read, daemon=True).start()
note("pid %d" % os.getpid())
for n in range(QUIET_AFTER + 4):
    if n == QUIET_AFTER:
        while not os.path.exists(go):
            time.sleep(0.2)
    event = {"type": "assistant", "message": {"content": [{"type": "text", "text": "working, step %d" % n}]}}
    try:
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()
        note("write %d ok" % n)
    except OSError as error:
        note("write %d failed: errno %s (%s)" % (n, error.errno, os.strerror(error.errno or 0)))
        if mode == "dies":
            os._exit(1)
    time.sleep(0.5)
issue = open(go).read().strip()
request = urllib.request.Request(
    "%s/api/issues/%s" % (os.environ["PAPERCLIP_API_URL"], issue), method="PATCH",
    data=json.dumps({"status": "done"}).encode(),
    headers={"Authorization": "Bearer " + os.environ["PAPERCLIP_API_KEY"], "X-Paperclip-Run-Id": run,
             "Content-Type": "application/json"})
note("issue done: HTTP %d" % urllib.request.urlopen(request).status)
os._exit(0)
"""
WRITES_BEFORE_RESTART = 3
SETTLE_S = 60  # how long the runs' records are watched once their processes are gone (Paperclip's sweeps take seconds)
MODES = {"dies": "like Codex", "survives": "like Claude Code"}


def journal(paperclip: Paperclip, run_id: str) -> list[str]:
    path = paperclip.root / f"cli-{run_id}.log"
    return path.read_text().splitlines() if path.is_file() else []


def cli_agent(paperclip: Paperclip, mode: str) -> str:
    """A `claude_local` agent on the CLI lane whose command is the stand-in, in ``mode``."""
    stand_in = paperclip.root / "claude"
    stand_in.write_text(STAND_IN.replace("QUIET_AFTER", str(WRITES_BEFORE_RESTART)))
    stand_in.chmod(0o755)
    config = {
        "engine": "cli",  # the CLI lane: Paperclip's hot restart adopts these runs (isServerStdioBoundHotRestartRun)
        "command": str(stand_in),
        "cwd": str(paperclip.root / "work"),
        "env": {"ANTHROPIC_API_KEY": "not-a-real-key"},  # Paperclip's credential gate wants one; nothing calls out
        "extraArgs": [f"--repro-instance={paperclip.root}", f"--repro-mode={mode}"],
    }
    payload = {"name": f"Coder {mode}", "role": "engineer", "adapterType": "claude_local", "adapterConfig": config}
    return str(paperclip.post(f"/api/companies/{paperclip.company_id}/agents", payload)["id"])


def hot_restart(paperclip: Paperclip) -> dict[str, object]:
    """`paperclipai service restart`'s steps: its intent file, the manager's SIGTERM, the start; the new report."""
    assert paperclip.server is not None
    instance = paperclip.config_path.parent
    health = paperclip.get("/api/health")
    (instance / "hot-restart-report.json").unlink(missing_ok=True)
    intent = {
        "version": 1,
        "requestedAt": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "previousServerPid": paperclip.server.pid,
        "previousServerVersion": health.get("serverVersion") or health.get("version"),
        "drainRequired": False,
        "requestedByRunId": None,
    }
    (instance / "hot-restart-intent.json").write_text(json.dumps(intent, indent=2) + "\n")
    print(f"wrote the hot-restart intent for server pid {paperclip.server.pid}; SIGTERM, then start again")
    paperclip.stop(signal.SIGTERM)
    paperclip.start()
    report: dict[str, object] = json.loads((instance / "hot-restart-report.json").read_text())
    return report


def after_restart(
    paperclip: Paperclip, runs: dict[str, tuple[str, dict[str, Any]]]
) -> dict[str, tuple[str, dict[str, Any]]]:
    """Let the quiet CLIs go on; each one's first write after the restart, and its run once its process is gone.

    Both runs' records are watched at once, each for SETTLE_S after its own process exited: a run the sweep ends
    is read when it ends, one left running when its SETTLE_S is up."""
    for issue, run in runs.values():
        (paperclip.root / f"go-{run['id']}").write_text(issue)
    first = f"write {WRITES_BEFORE_RESTART} "
    written = {
        mode: wait_for(
            f"the {mode} CLI's next write",
            lambda run=run: next((x for x in journal(paperclip, run["id"]) if x.startswith(first)), None),
        )
        for mode, (_, run) in runs.items()
    }
    gone_at = {}
    for mode, (_, run) in runs.items():
        wait_for(f"pid {run['processPid']} to exit", lambda run=run: not pid_alive(run["processPid"]))
        gone_at[mode] = time.monotonic()
    watched: dict[str, float] = {}  # how long each run was watched after its process exited
    while len(watched) < len(runs):
        for mode in sorted(set(runs) - set(watched)):
            since = time.monotonic() - gone_at[mode]
            if since >= SETTLE_S or paperclip.run(runs[mode][1]["id"])["status"] != "running":
                watched[mode] = since
        time.sleep(0.5)
    seen = {}
    for mode, (issue, run) in runs.items():
        ended = paperclip.run(run["id"])
        others = [(r["id"], r["status"]) for r in paperclip.runs(issue) if r["id"] != run["id"]]
        state = paperclip.get(f"/api/issues/{issue}")["status"]
        print(f"the CLI that {mode} ({MODES[mode]}), after the restart: {written[mode]!r}")
        print(f"  its log: {journal(paperclip, run['id'])[-1]!r}")
        print(
            f"  {watched[mode]:.0f} s after its process exited, its run: {summary(ended)}; error={ended.get('error')!r}"
        )
        print(f"  its issue is {state!r}; other runs for it: {others or 'none'}")
        seen[mode] = (written[mode], ended | {"issueStatus": state, "otherRuns": others})
    return seen


def reproduce(paperclip: Paperclip) -> tuple[bool, str]:
    runs = {}
    for mode in MODES:
        issue = paperclip.assign_issue(f"Work through the backlog ({mode})", cli_agent(paperclip, mode))
        runs[mode] = (issue, paperclip.started_run(issue))
        print(f"run {runs[mode][1]['id']} ({mode}) is running as pid {runs[mode][1]['processPid']}")
    for mode, (_, run) in runs.items():
        wait_for(
            f"the {mode} CLI's first writes",
            lambda run=run: f"write {WRITES_BEFORE_RESTART - 1} ok" in journal(paperclip, run["id"]),
        )

    report = hot_restart(paperclip)
    adopted = {str(i) for i in report.get("adoptedRunIds", [])}  # type: ignore[attr-defined]
    print(
        f"hot-restart report: adopted {sorted(adopted)}, skipped {report.get('skippedRunIds')}, lost {report.get('lostRunIds')}"
    )
    seen = after_restart(paperclip, runs)

    all_adopted = all(run["id"] in adopted for _, run in runs.values())
    broken = all("errno 32" in written for written, _ in seen.values())
    dead, survivor = seen["dies"][1], seen["survives"][1]
    if all_adopted and broken:
        return True, (
            "the new server adopted both runs ('Adopted live child process after hot restart'), but a run's stdout is"
            " a pipe whose only reader was the old server: each CLI's next write failed with EPIPE. The one that"
            f" exits on it (as Codex does) ended {dead['status']!r} ({dead.get('errorCode')}), its issue"
            f" {dead['issueStatus']!r} with {len(dead['otherRuns'])} other run(s); the one that carried on and"
            f" finished (as Claude Code does) is recorded {survivor['status']!r} ({survivor.get('errorCode')}) beside"
            f" its {survivor['issueStatus']!r} issue. Expected: an adopted run keeps working and its end is recorded,"
            " or Paperclip drains and retries it as it does the runs it knows are bound to the server's stdio"
        )
    return False, f"adopted {sorted(adopted)}; writes after the restart: {[w for w, _ in seen.values()]}"


if __name__ == "__main__":
    main("Finding: the hot restart adopts a CLI-lane run whose output pipe dies with the old server", reproduce)
