"""A registered agent CLI (Codex, Claude Code, OpenCode, ...) as a runner adapter.

One run: a fresh private home, a cleared environment, the task's workspace
as working folder, the product's MCP tools, and a metering proxy that is the
CLI's only way to its model (it holds the real key, if any; the CLI gets a
throwaway one): on loopback beside the runner, or on the host for a runner
in a sandbox (:mod:`harness.agents.meter`). The CLI runs as its own process group inside the
runner's session, so the deadline ends the CLI's group and the product's
Stop ends everything. When a turn ends with user messages unread, the same
CLI session is resumed with them; nothing is dropped.

The run is judged by its effects (deliveries, comments, status: the product
records them as the agent acts), never by the CLI's exit status. The runner
only says how the run ended: budget refused, deadline reached, no model call
answered at all, or the agent's turn ended.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from . import instructions
from .install import locate
from .launch import InstalledCli, LaunchRequest, McpServer, end_group, start
from .meter import Meter, MeterStatus, RunMeter, SocketMeter
from .receipts import read_detail
from .registry import AgentCli, cli
from .session import AgentSession
from .workspace_watch import WorkspaceWatch

log = logging.getLogger("agents.cli")

POLL_SECONDS = 0.2
T = TypeVar("T")


class Turn(BaseModel):
    session: str | None
    seconds: float
    exit_code: int | None
    timed_out: bool
    stopped_for_budget: bool
    final_text: str
    reported_cost_usd: float | None = None  # the CLI's own cost figure for this turn, when it prints one


def read_inbox(session: AgentSession) -> list[dict[str, Any]]:
    """The user's new messages, with the runner's receipt naming each one it now hands to the CLI."""
    messages = session.client.inbox()
    if messages:
        session.client.receipt(
            "read_inbox", f"{len(messages)} message(s)", detail=read_detail([m["id"] for m in messages])
        )
    return messages


class CliAgent:
    def __init__(self, kind: AgentCli) -> None:
        self.kind = kind

    def run(self, session: AgentSession) -> None:
        cli = locate(self.kind.name)  # MissingCli: the run fails loudly, naming `make agents`
        log.info("run %s: %s %s (%s) model %s", session.run_id, cli.name, cli.version, cli.binary, session.model)
        context = session.client.context()
        session.budget_cents = context.get("budget_remaining_cents")  # what the agent's and the company's budgets leave
        new = read_inbox(session)
        deadline = time.monotonic() + session.time_limit_s
        home = Path(tempfile.mkdtemp(prefix=f"agent-home-run{session.run_id}-"))
        meter: RunMeter = (
            SocketMeter(session, session.model_socket) if session.model_socket else Meter(session, self.kind)
        )
        try:
            prompt, resume, turns = instructions.first_prompt(context, new), None, []
            while True:
                turn = self._turn(session, cli, home, meter, prompt, resume, deadline)
                turns.append(turn)
                if turn.timed_out or turn.stopped_for_budget:
                    break
                waiting = read_inbox(session)
                if not waiting:
                    break
                log.info(
                    "run %s: %d message(s) arrived during the turn; resuming session %s",
                    session.run_id,
                    len(waiting),
                    turn.session,
                )
                if turn.session:
                    prompt, resume = instructions.resume_prompt(waiting), turn.session
                else:  # no session to continue: a fresh one that carries everything
                    prompt, resume = instructions.first_prompt(session.client.context(), waiting), None
            status = meter.status()
        finally:
            meter.stop()
            shutil.rmtree(home, ignore_errors=True)
        self._finish(session, status, turns)

    def _turn(
        self,
        session: AgentSession,
        cli: InstalledCli,
        home: Path,
        meter: RunMeter,
        prompt: str,
        resume: str | None,
        deadline: float,
    ) -> Turn:
        request = LaunchRequest(
            cli=cli,
            workspace=session.workspace,
            home=home,
            prompt=prompt,
            proxy_url=meter.url,
            proxy_key=meter.client_key,
            model=session.model,
            timeout_seconds=max(1.0, deadline - time.monotonic()),
            resume_session=resume,
            mcp=McpServer(url=session.tool_server_url, token=session.token) if session.tool_server_url else None,
        )
        spec = self.kind.launch(request)
        out_path = home / f"turn-{time.monotonic_ns()}.jsonl"
        started = time.monotonic()

        def saved(name: str, digest: str) -> None:
            session.client.receipt("write_file", name, detail=f"sha256 {digest}")

        with open(out_path, "w") as out, WorkspaceWatch(session.workspace, saved):
            process = start(spec, stdout=out, stderr=subprocess.STDOUT)
            log.info(
                "run %s: %s started as pid %s%s",
                session.run_id,
                cli.name,
                process.pid,
                f" resuming {resume}" if resume else "",
            )
            timed_out = stopped = False
            while process.poll() is None:
                if time.monotonic() > deadline:
                    timed_out = True
                    break
                if meter.budget_stopped():
                    stopped = True
                    break
                time.sleep(POLL_SECONDS)
            end_group(process.pid)  # the CLI and whatever it left running
            process.wait()
        output = out_path.read_text(errors="replace")
        for line in output.splitlines()[-40:]:
            log.info("%s| %s", cli.name, line[:400])
        return Turn(
            session=self.kind.session_id(output) or resume,
            seconds=round(time.monotonic() - started, 3),
            exit_code=None if timed_out or stopped else process.returncode,
            timed_out=timed_out,
            stopped_for_budget=stopped or meter.budget_stopped(),
            final_text=(last(self.kind.final_text, output) or "").strip(),
            reported_cost_usd=last(self.kind.reported_cost_usd, output),
        )

    def _finish(self, session: AgentSession, status: MeterStatus, turns: list[Turn]) -> None:
        cents = sum(call.cost_cents for call in status.calls)
        answered = len([call for call in status.calls if call.usage and 200 <= call.status < 300])
        figures = f"{len(status.calls)} model call(s), {cents:.2f} cents{' (simulated)' if status.simulated else ''}"
        real_cents = 0 if status.simulated else round(cents)
        agent_reported = reported_cost_of_run(turns)
        last = turns[-1]

        def finish(outcome: str, summary: str, error_code: str | None = None) -> None:
            session.client.finish(
                outcome, summary, error_code, cost_cents=real_cents, agent_reported_cost_usd=agent_reported
            )

        if last.stopped_for_budget:
            finish("failed", f"budget exceeded: {figures}, budget {status.budget_cents} cents", "budget_exceeded")
        elif last.timed_out:
            finish(
                "failed", f"wall-clock limit of {session.time_limit_s:.0f} s reached: {figures}", "deadline_exceeded"
            )
        elif answered == 0:
            finish("failed", f"the agent made no model call (exit {last.exit_code})", "agent_error")
        else:
            summary = (last.final_text or "turn ended")[:1500]
            finish("succeeded", f"{summary} [{len(turns)} turn(s), {figures}]")


def _events(output: str) -> Iterator[dict[str, Any]]:
    """The JSON events a CLI printed, one a line; anything else it printed is skipped."""
    for line in output.splitlines():
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            yield event


def last(parse: Callable[[dict[str, Any]], T | None], output: str) -> T | None:
    """The last answer ``parse`` (one of the CLI's event parsers) gives over a turn's output, else None.

    A CLI's own cost figure is kept beside the proxy's metered one, never
    instead of it: the CLI prices on the client from the model name and cannot
    see calls the proxy refused.
    """
    found = None
    for event in _events(output):
        answer = parse(event)
        if answer is not None:
            found = answer
    return found


def reported_cost_of_run(turns: list[Turn]) -> float | None:
    """The run's cost as the CLI itself reported it: each session's last figure, summed over sessions.

    Claude Code's ``total_cost_usd`` is its session's running total: a turn
    that resumes a session (``--resume``) reports what the whole session has
    cost so far. Measured with Claude Code 2.1.332 against the replay: the
    first turn reported 0.2627 USD, the resumed second 0.2954 USD, while the
    proxy metered 0.0327 USD for the second turn's one call. Adding the turns'
    figures counted the first turn twice. A turn whose session is unknown
    stands alone. None when no turn reported a cost (Codex, OpenCode).
    """
    last: dict[str, float] = {}
    for index, turn in enumerate(turns):
        if turn.reported_cost_usd is not None:
            last[turn.session or f"unnamed turn {index}"] = turn.reported_cost_usd
    return round(sum(last.values()), 6) if last else None


def adapter(name: str) -> CliAgent:
    return CliAgent(cli(name))
