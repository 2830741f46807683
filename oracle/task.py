"""The one interface an oracle task implements; the engine knows tasks only through it.

A task is what a delivery is graded against: the contract a story sends,
the checks that decide, and the program that observes the delivery inside
the sandbox. The engine does intake, runs the task's collector in one
hardened container and orders the checks; the task says what to look at and
what it means. Tasks live in `oracle/tasks/<name>/` and are found by name
(`oracle.tasks.load`), so the engine never imports one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from pydantic import BaseModel

from oracle.checks import Check, CheckRegistry
from oracle.task_errors import UnknownMode


class OracleTask(ABC):
    """Base class of every oracle task; subclasses fill in the class attributes and the four methods."""

    name: ClassVar[str]
    """The task's name, as given to `--task` (also its folder under oracle/tasks)."""
    modes: ClassVar[tuple[str, ...]]
    """The requirement sets a delivery can be graded against."""
    default_mode: ClassVar[str | None] = None
    """The mode used when none is asked for; None means the caller must choose (a task with several modes)."""
    contract: ClassVar[ModuleType]
    """The module holding the texts stories send and the facts the checks derive from."""
    checks: ClassVar[CheckRegistry]
    """The task's check ids in deciding order (see CheckRegistry.for_task)."""
    collector: ClassVar[Path]
    """A standalone stdlib-only script run as `python3 -c SOURCE PLAN_JSON` inside the sandbox; it prints observations as its last JSON line."""
    observations: ClassVar[type[BaseModel]]
    """The model the collector's last line must validate as (anything else fails sandbox.completed)."""

    def require_mode(self, mode: str | None) -> str:
        """The mode itself (or the task's default when None), or UnknownMode naming the ones this task has."""
        if mode is None and self.default_mode is None:
            raise UnknownMode(f"task {self.name!r} needs --mode; choose one of {', '.join(self.modes)}")
        mode = self.default_mode if mode is None else mode
        if mode not in self.modes:
            raise UnknownMode(f"task {self.name!r} has no mode {mode!r}; choose one of {', '.join(self.modes)}")
        return str(mode)

    @abstractmethod
    def structure(self, delivery: Path) -> tuple[list[Check], Path | None]:
        """Host-side checks on the extracted files (no delivery code runs) and the project folder to run in, or None to stop."""

    @abstractmethod
    def plan(self, mode: str, project: Path, agent_tests: bool) -> dict[str, Any]:
        """The task's part of the collector's JSON plan; the engine adds the project path inside the container and the limits."""

    @abstractmethod
    def judge(self, mode: str, observed: BaseModel) -> list[Check]:
        """The verdict on the collector's observations, computed on the host (diagnostics included).

        A task whose collector runs several bounded steps may report
        `sandbox.completed` itself (failed when a step never finished); it
        then replaces the engine's, which only knows the collector answered.
        """

    @abstractmethod
    def reference_solution(self) -> dict[str, str]:
        """The files (path -> text) of a delivery that passes every mode: calibration's and the benchmark's known-good input."""
