"""``python -m everyday_vibe_kanban.claude_cli``: the real Claude Code, as vibe-kanban's profile runs it, metered.

vibe-kanban runs ``<base command> -p ... --output-format=stream-json`` (with
``--resume <session>`` for a follow-up) in the attempt's worktree and writes
the prompt on stdin. A profile's ``base_command_override`` puts this module
there: it starts our metering proxy on loopback (forwarding to ``--upstream``,
the harness's model replay; a throwaway key the proxy checks), then runs the
pinned Claude Code (``--cli``) with every argument vibe-kanban gave, its stdin
and stdout handed straight through, pointed at the proxy, and its exit status
returned. Nothing but the proxy stands between the CLI and its model. A
signal (vibe-kanban's Stop sends SIGINT, then SIGTERM, then SIGKILL to the
process group, until its leader, this process, has exited) is passed on to
the CLI and this process exits only once the CLI has: it never leaves before
the process it stands for, so what Stop leaves behind is the product's doing.

Each call the proxy reports is a JSON line in the run's ledger,
``<instance>/metering/<start>-<pid>.jsonl``, whose first line names the
worktree and the moment the run began: the driver credits a run's calls to
the run vibe-kanban started in that worktree then (:mod:`.metering`). A call
is written once admitted, before a byte goes upstream, and again when it
ends: a call Stop cut short (the whole process group is killed) is on record.
``--time-limit`` bounds the run's wall clock; past it the CLI is ended and the
run fails, as a runner's limit would.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from everyday_vibe_kanban.metering import LEDGERS, LedgerHead
from harness.agents.clis.claude import OFFLINE_ENV
from harness.agents.metering.proxy import CallReport, ProxyConfig, start_proxy

TIME_LIMIT_EXIT = 124  # what timeout(1) returns: vibe-kanban records the run failed


def _ledger(instance: Path) -> Path:
    folder = instance / LEDGERS
    folder.mkdir(parents=True, exist_ok=True)
    began = time.time()
    path = folder / f"{began:.6f}-{os.getpid()}.jsonl"
    path.write_text(LedgerHead(worktree=Path.cwd().name, began=began).model_dump_json() + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m everyday_vibe_kanban.claude_cli")
    parser.add_argument("--cli", required=True, help="the pinned Claude Code binary")
    parser.add_argument("--upstream", required=True, help="the model server (the harness's replay)")
    parser.add_argument("--instance", required=True, type=Path, help="the instance folder (its ledgers)")
    parser.add_argument("--model", required=True)
    parser.add_argument("--time-limit", type=float, default=None, help="seconds the run may take")
    ours, theirs = parser.parse_known_args(argv)  # the rest is vibe-kanban's: handed to Claude Code as given
    ledger = _ledger(ours.instance)
    client_key = secrets.token_urlsafe(24)
    config = ProxyConfig(upstream=ours.upstream, provider="anthropic", client_key=client_key, simulated=True)

    def on_call(report: CallReport) -> None:
        with ledger.open("a") as out:
            out.write(report.model_dump_json() + "\n")

    _proxy, server = start_proxy(config, on_call, admit=on_call)
    env = {
        **os.environ,
        **OFFLINE_ENV,
        "CLAUDE_CONFIG_DIR": str(Path(os.environ["HOME"]) / ".claude"),
        "ANTHROPIC_BASE_URL": server.url.rstrip("/"),
        "ANTHROPIC_API_KEY": client_key,
    }
    signalled: list[int] = []

    def pass_on(received: int, _frame: object) -> None:
        signalled.append(received)
        cli.send_signal(received)

    cli = subprocess.Popen([ours.cli, *theirs, "--model", ours.model], env=env)  # stdin, stdout: vibe-kanban's
    for signum in (signal.SIGINT, signal.SIGTERM):  # passed on, then waited out: the CLI ends before we do
        signal.signal(signum, pass_on)
    try:
        code = cli.wait(timeout=ours.time_limit)
    except subprocess.TimeoutExpired:
        cli.kill()
        cli.wait()
        code = TIME_LIMIT_EXIT
        sys.stderr.write(f"claude_cli: the run passed its time limit of {ours.time_limit:.0f} s\n")
    if signalled:  # stopped: gone the moment the CLI is (a call Stop cut short is on its ledger already)
        os._exit(code if code >= 0 else 128 - code)
    server.stop()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
