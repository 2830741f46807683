"""What an agent adapter gets for one run, and what it must do with it.

An adapter (the scripted agent, a registered CLI through
:mod:`harness.agents.cli_agent`) gets an :class:`AgentSession` (its workspace, pace
and the product's agent API client) and returns when its run is over, having
reported ``finish``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .client import AgentClient


THINK_STEPS = 10


@dataclass
class AgentSession:
    client: AgentClient
    workspace: Path
    model: str
    pace: float
    run_id: int | str  # opaque: Paperclip's runs have UUIDs
    tool_server_url: str = ""  # the product's MCP tools for this run (streamable HTTP); "": the CLI's own only
    token: str = ""  # the run's token: the product's MCP tools act as this run
    model_upstream: str | None = (
        None  # the model server behind the metering proxy (the replay server); None: the real provider
    )
    model_socket: str | None = None  # the run's metering proxy on the host (a runner in a sandbox); None: its own
    provider_keys: dict[str, str] = field(default_factory=dict)  # real keys, held by the metering proxy only
    budget_cents: float | None = None  # what is left of the agent's and the company's budget
    time_limit_s: float = 600.0

    def step(self) -> None:
        """One visible step: slow enough for a person (or a story) to act between steps."""
        time.sleep(self.pace)

    def think(self) -> None:
        """A long step, as an agent reviewing what it just wrote.

        Faults land inside it: a Stop the product never carried out finds the
        runner still alive when the product says it is gone, instead of a
        runner that happened to leave on its own at its next call.
        """
        time.sleep(self.pace * THINK_STEPS)


class Adapter(Protocol):
    def run(self, session: AgentSession) -> None: ...
