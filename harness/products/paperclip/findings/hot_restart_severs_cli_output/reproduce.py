"""`paperclipai service restart` adopts a `claude_local`/`codex_local` CLI run whose output is a pipe to the old server.

Steps (public API, Paperclip's own hot-restart intent file, plain OS process
control only): a `claude_local` agent (the CLI lane, `engine: "cli"`) whose
`command` is a stand-in for the Claude Code CLI: it prints one stream-json
line every half second, as the CLI does while it works, falls quiet after
three (as a CLI does while its model thinks), and notes in a file of its own
whether each write went through. An issue is assigned to it, so
Paperclip starts a run. Then the hot restart `paperclipai service restart`
drives, without a service manager (this reproduction has none): the CLI's
intent file (`<instance>/hot-restart-intent.json`, the fields its
`writeHotRestartIntent` writes, naming the running server's pid), SIGTERM to
that server (what systemd's or launchd's restart sends), and the server
started again on the same data.

Expected ("Hot-restart the service while preserving active agent runs"): the
new server adopts the run and the run goes on working: its output still has
somewhere to go, and its end is recorded. Or Paperclip drains and retries it,
as it does the runs it knows are bound to the server's stdio. Actual: adopted,
the CLI's next write fails with EPIPE (its stdout was a pipe to the old
server), the run is later terminalized by the recovery backstop and the issue
is left in progress with nothing running. See REPORT.md.

Run: `python reproduce.py` (exit 1: reproduced; 0: not reproduced; 2: could not run).
"""

from __future__ import annotations

import json
import signal
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from isolated_paperclip import Paperclip, main, pid_alive, summary, wait_for  # noqa: E402

# The stand-in CLI: it ignores Claude Code's arguments except the instance folder (which also marks it for teardown),
# writes a stream-json event every half second, falls quiet after QUIET_AFTER events until a go-<run> file appears
# (a CLI is quiet while its model thinks: the restart lands then), and notes each write's fate in cli-<run>.log. A
# write that fails ends it with status 1, as a CLI whose output is gone does.
STAND_IN = r"""#!/usr/bin/env python3
import json, os, sys, threading, time
root = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--repro-instance="))
run = os.environ.get("PAPERCLIP_RUN_ID", "unknown")
journal = os.path.join(root, "cli-%s.log" % run)
def note(line):
    with open(journal, "a") as out:
        out.write(line + "\n")
if not sys.stdin.closed:
    threading.Thread(target=sys.stdin.read, daemon=True).start()
note("pid %d" % os.getpid())
for n in range(600):
    if n == QUIET_AFTER:  # waiting for its model: nothing to print until the reproduction says go
        while not os.path.exists(os.path.join(root, "go-%s" % run)):
            time.sleep(0.2)
    event = {"type": "assistant", "message": {"content": [{"type": "text", "text": "working, step %d" % n}]}}
    try:
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()
    except OSError as error:
        note("write %d failed: errno %s (%s)" % (n, error.errno, os.strerror(error.errno or 0)))
        os._exit(1)
    note("write %d ok" % n)
    time.sleep(0.5)
note("finished")
"""
WRITES_BEFORE_RESTART = 3
SETTLE_S = 120  # how long the run's record is watched once its process is gone (Paperclip's sweeps take seconds)


def journal(paperclip: Paperclip, run_id: str) -> list[str]:
    path = paperclip.root / f"cli-{run_id}.log"
    return path.read_text().splitlines() if path.is_file() else []


def cli_agent(paperclip: Paperclip) -> str:
    """A `claude_local` agent on the CLI lane whose command is the stand-in."""
    stand_in = paperclip.root / "claude"
    stand_in.write_text(STAND_IN.replace("QUIET_AFTER", str(WRITES_BEFORE_RESTART)))
    stand_in.chmod(0o755)
    config = {
        "engine": "cli",  # the CLI lane: Paperclip's hot restart adopts these runs (isServerStdioBoundHotRestartRun)
        "command": str(stand_in),
        "cwd": str(paperclip.root / "work"),
        "env": {"ANTHROPIC_API_KEY": "not-a-real-key"},  # Paperclip's credential gate wants one; nothing calls out
        "extraArgs": [f"--repro-instance={paperclip.root}"],
    }
    payload = {"name": "Coder", "role": "engineer", "adapterType": "claude_local", "adapterConfig": config}
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


def reproduce(paperclip: Paperclip) -> tuple[bool, str]:
    agent = cli_agent(paperclip)
    issue = paperclip.assign_issue("Work through the backlog", agent)
    run = paperclip.started_run(issue)
    run_id, pid = run["id"], run["processPid"]
    print(f"run {run_id} is running as pid {pid}")
    wait_for(
        f"{WRITES_BEFORE_RESTART} writes of the CLI",
        lambda: f"write {WRITES_BEFORE_RESTART - 1} ok" in journal(paperclip, run_id),
    )

    report = hot_restart(paperclip)
    adopted = run_id in report.get("adoptedRunIds", [])  # type: ignore[operator]
    print(
        f"hot-restart report: adopted {report.get('adoptedRunIds')}, skipped {report.get('skippedRunIds')},"
        f" lost {report.get('lostRunIds')}"
    )

    (paperclip.root / f"go-{run_id}").write_text("go")
    print("the CLI, quiet while the restart went on, now writes its next event")
    written = wait_for(
        "the CLI's next write after the restart",
        lambda: next(
            (line for line in journal(paperclip, run_id)[1:] if line.startswith(f"write {WRITES_BEFORE_RESTART} ")),
            None,
        ),
    )
    print(f"the CLI after the restart: {written!r}")
    wait_for(f"pid {pid} to exit", lambda: not pid_alive(pid))
    gone_at = time.monotonic()
    while time.monotonic() - gone_at < SETTLE_S and paperclip.run(run_id)["status"] == "running":
        time.sleep(0.5)
    after = paperclip.run(run_id)
    others = [r for r in paperclip.runs(issue) if r["id"] != run_id]
    state = paperclip.get(f"/api/issues/{issue}")["status"]
    print(
        f"{time.monotonic() - gone_at:.0f} s after pid {pid} exited, the run is: {summary(after)}; error={after.get('error')!r}"
    )
    print(f"the issue is {state!r}; other runs for it: {[(r['id'], r['status']) for r in others] or 'none'}")

    if adopted and "errno 32" in written:
        return True, (
            f"the new server adopted run {run_id} ('Adopted live child process after hot restart'), but the run's"
            " stdout is a pipe whose only reader was the old server: the CLI's next write failed with EPIPE and it"
            f" exited; the run then ended {after['status']!r} ({after.get('errorCode')}) and the issue is {state!r}"
            f" with {len(others)} other run(s). Expected: an adopted run keeps working (its output goes somewhere the"
            " new server reads), or Paperclip drains and retries it as it does the runs it knows are bound to the"
            " server's stdio"
        )
    return False, f"adopted: {adopted}; the CLI after the restart: {written!r}; the run: {after['status']!r}"


if __name__ == "__main__":
    main("Finding: the hot restart adopts a CLI-lane run whose output pipe dies with the old server", reproduce)
