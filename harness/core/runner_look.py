"""The harness's own look at a run's runner: the process table for a local runner, the engine for a sandboxed one.

An observation with ``harness`` provenance, made by whoever can see the
runner (:mod:`harness.running.runner_looks`), and judged by the restart and
Stop rules. The product names the runner (a pid, a lease); everything else in
a look comes from the table or the engine, never from the product's record,
so a product that keeps an old identity on a run whose runner it replaced is
caught. A sandbox is named by a digest of the engine's container id, never
the raw id.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

LookSource = Literal["process-table", "engine", "nothing-named"]


class RunnerLook(BaseModel):
    """One look at the runner the product names for a run, at one moment."""

    provenance: Literal["harness"] = "harness"
    source: LookSource
    looked_for: str = Field(description="what the product named: 'pid 123' or 'lease <digest>', or why nothing")
    alive: bool = Field(description="the named process (non-zombie) or container runs")
    pid: int | None = Field(None, description="the process's pid, or the container's first process's host pid")
    started: str | None = Field(
        None, description="the process's start time from the table, or the container's State.StartedAt"
    )
    group: int | None = Field(None, description="the process group the table puts the runner's process in")
    sandbox_sha256: str | None = Field(None, description="sha256 of the engine's container id (never the raw id)")

    @property
    def key(self) -> tuple[str | None, int | None, str | None] | None:
        """What makes two looks the same runner: the running process's pid and start time (and its container)."""
        return (self.sandbox_sha256, self.pid, self.started) if self.alive and self.started else None


class GroupLook(BaseModel):
    """One look at what is left of a stopped runner: the live processes of its group, or of its container."""

    provenance: Literal["harness"] = "harness"
    source: LookSource
    at_s: float = Field(description="seconds after the product said the run stopped")
    members: list[int] = Field(
        default_factory=list, description="pids of the group's live processes (the container's, for a sandbox)"
    )
