"""The slugify task: build a slug CLI, then revise it (`--separator`, `--max-length`).

Stories import the texts they send from `oracle.tasks.slugify.contract`; the
engine reaches this task only through `TASK` (found by `oracle.tasks.load`).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from oracle.checks import Check, CheckRegistry
from oracle.task import OracleTask
from oracle.tasks.slugify import behaviour, contract, reference
from oracle.tasks.slugify.checks import REGISTRY
from oracle.tasks.slugify.structure import structure_checks


class SlugifyTask(OracleTask):
    """One importable slugify.py with a README and tests, graded by cumulative modes."""

    name: ClassVar[str] = "slugify"
    modes: ClassVar[tuple[str, ...]] = contract.MODES
    contract: ClassVar[ModuleType] = contract
    checks: ClassVar[CheckRegistry] = REGISTRY
    collector: ClassVar[Path] = Path(__file__).with_name("collector.py")
    observations = behaviour.Observations

    def structure(self, delivery: Path) -> tuple[list[Check], Path | None]:
        return structure_checks(delivery)

    def plan(self, mode: str, project: Path, agent_tests: bool) -> dict[str, Any]:
        return behaviour.collector_plan(self.require_mode(mode), project, agent_tests)  # type: ignore[arg-type]

    def judge(self, mode: str, observed: behaviour.Observations) -> list[Check]:  # type: ignore[override]
        return behaviour.judge(self.require_mode(mode), observed)  # type: ignore[arg-type]

    def reference_solution(self) -> dict[str, str]:
        return reference.files()


TASK = SlugifyTask()
