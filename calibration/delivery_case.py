"""What one oracle calibration delivery is: how its ZIP is built, which task and mode grade it, what must decide it."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from oracle.tasks import DEFAULT_TASK


class HostTraps(BaseModel):
    """What the runner plants on the host for escape attempts to find: a secret file and a loopback service."""

    secret_path: str
    secret: str
    loopback_port: int


class Case(BaseModel):
    """One calibration delivery: how to build its ZIP, which task and mode grade it, which check must decide it."""

    name: str
    task: str = DEFAULT_TASK
    mode: str
    expected: str | None  # None: must pass
    build: Callable[[HostTraps], bytes]
