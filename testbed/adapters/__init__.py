"""Agent adapters: what actually does the work inside a runner process.

An adapter gets an :class:`AgentSession` (its workspace, pace and the agent
API client) and returns when its run is over, having reported ``finish``.
A later issue adds command-line agents and an OpenAI-compatible
tool-calling agent by registering more adapters here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..agent_client import AgentClient


THINK_STEPS = 10


@dataclass
class AgentSession:
    client: AgentClient
    workspace: Path
    model: str
    pace: float
    run_id: int

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


def _scripted() -> Adapter:
    from .scripted import ScriptedAgent

    return ScriptedAgent()


ADAPTERS = {"scripted": _scripted}


def adapter_for(name: str) -> Adapter:
    try:
        return ADAPTERS[name]()
    except KeyError:
        raise ValueError(f"unknown adapter {name!r}; known: {sorted(ADAPTERS)}") from None
