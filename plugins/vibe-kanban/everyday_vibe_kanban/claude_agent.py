"""``python -m everyday_vibe_kanban.claude_agent``: the scripted agent, speaking Claude Code's ``stream-json``.

vibe-kanban's Claude Code profile runs ``<base command> -p ... --output-format=stream-json``
in the attempt's worktree (``--resume <session>`` for a follow-up), writes the
prompt on stdin and reads JSON lines on stdout. A profile's
``base_command_override`` puts this module there instead of the real CLI, so
the behaviour is :class:`harness.agents.scripted.agent.ScriptedAgent`, unchanged;
this module is only the thin client that answers its calls in that protocol:

- the task is the first prompt of the session; each follow-up's prompt is
  a new message the agent reads from its inbox once, known by
  ``<session>:<n>`` (the n-th prompt of the session), which is how the
  driver names the follow-up it stored (so the read receipts name it too);
- a comment is an assistant text message, a receipt a ``tool_use`` with its
  ``tool_result``; the last comment is the run's result;
- a delivery is what vibe-kanban commits from the worktree when the run
  ends: the agent's ``deliver`` only records that it delivered.

A session's prompts are kept in ``$HOME/.everyday-sessions/<session>.json``
(the instance's home, outside the worktree), which is how ``--resume`` finds them.
``--model`` picks the persona and ``--pace`` the step time, as on the other products.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from harness.agents.scripted.agent import ScriptedAgent
from harness.agents.session import AgentSession

log = logging.getLogger("everyday_vibe_kanban.claude_agent")
SESSIONS = ".everyday-sessions"


def emit(event: dict[str, Any]) -> None:
    """One stream-json line on stdout, flushed: vibe-kanban shows it as it arrives."""
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


class StreamJsonClient:
    """The calls :class:`ScriptedAgent` makes, answered from the session's prompts and told on stdout."""

    def __init__(self, session_id: str, prompts: list[str], resumed: bool) -> None:
        self.session_id = session_id
        self.prompts = prompts
        self.resumed = resumed
        self._inbox_read = False
        self._seq = 0
        self.outcome = "succeeded"
        self.last_comment = ""

    def _message(self, role: str, content: list[dict[str, Any]]) -> None:
        emit({"type": role, "message": {"role": role, "content": content}, "session_id": self.session_id})

    def context(self) -> dict[str, Any]:
        earlier = [
            {"id": self._message_id(n), "author_kind": "user", "body": body}
            for n, body in enumerate(self.prompts[1:-1], start=1)
        ]
        return {
            "task": {
                "id": self.session_id,
                "title": self.prompts[0].splitlines()[0],
                "body": self.prompts[0],
                "comments": earlier,
                "deliveries": [{"id": "earlier run"}] if self.resumed else [],
            },
            "agent": {"id": "claude-code", "name": "Claude Code"},
        }

    def inbox(self) -> list[dict[str, Any]]:
        """A follow-up's prompt, once: a run never receives a message after it started."""
        if self._inbox_read or not self.resumed:
            return []
        self._inbox_read = True
        return [{"id": self._message_id(len(self.prompts) - 1), "body": self.prompts[-1]}]

    def _message_id(self, n: int) -> str:
        return f"{self.session_id}:{n}"

    def comment(self, body: str) -> None:
        self.last_comment = body
        self._message("assistant", [{"type": "text", "text": body}])

    def receipt(self, tool: str, target: str = "", ok: bool = True, detail: str = "") -> str:
        self._seq += 1
        use_id = f"toolu_{self.session_id[:8]}_{self._seq}"
        self._message("assistant", [{"type": "tool_use", "id": use_id, "name": tool, "input": {"target": target}}])
        self._message(
            "user", [{"type": "tool_result", "tool_use_id": use_id, "content": detail or target, "is_error": not ok}]
        )
        return use_id

    def set_status(self, status: str) -> None:
        """vibe-kanban moves the task to In Review itself when the run ends."""

    def deliver(self, data: bytes) -> None:
        """vibe-kanban commits the worktree when the run ends: that commit is the delivery."""

    def flush(self) -> None:
        """Every line is flushed as it is written."""

    def finish(self, outcome: str, summary: str = "", error_code: str | None = None, cost_cents: int = 0) -> None:
        self.outcome = outcome
        emit(
            {
                "type": "result",
                "subtype": "success" if outcome == "succeeded" else "error",
                "is_error": outcome != "succeeded",
                "result": self.last_comment or summary,
                "session_id": self.session_id,
            }
        )


def _session(home: Path, resume: str | None, prompt: str) -> tuple[str, list[str]]:
    folder = home / SESSIONS
    folder.mkdir(parents=True, exist_ok=True)
    session_id = resume or str(uuid.uuid4())
    path = folder / f"{session_id}.json"
    prompts = json.loads(path.read_text()) if resume and path.is_file() else []
    prompts.append(prompt)
    path.write_text(json.dumps(prompts))
    return session_id, prompts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m everyday_vibe_kanban.claude_agent")
    parser.add_argument("--model", default="default", help="the scripted persona")
    parser.add_argument("--pace", type=float, default=0.05, help="seconds per visible step")
    parser.add_argument("--resume", default=None, help="the session to continue (a follow-up)")
    parser.add_argument("-p", "--print", action="store_true", help="Claude Code's non-interactive mode (always on)")
    args, _ = parser.parse_known_args(argv)  # Claude Code's other flags (--verbose, --output-format) change nothing
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(process)d %(name)s %(message)s")
    prompt = sys.stdin.read()
    session_id, prompts = _session(Path(os.environ["HOME"]), args.resume, prompt)
    emit({"type": "system", "subtype": "init", "session_id": session_id, "cwd": os.getcwd(), "model": args.model})
    client = StreamJsonClient(session_id, prompts, resumed=len(prompts) > 1)
    session = AgentSession(
        client=client,  # type: ignore[arg-type]  # the same calls as the testbed's client, over stream-json
        workspace=Path.cwd(),
        model=args.model,
        pace=args.pace,
        run_id=session_id,
    )
    try:
        ScriptedAgent().run(session)
    except Exception:
        log.exception("agent failed")
        return 1
    return 0 if client.outcome == "succeeded" else 1


if __name__ == "__main__":
    raise SystemExit(main())
