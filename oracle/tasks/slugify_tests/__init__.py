"""The slugify-tests task: a QA delivery, a unittest suite for the slugify tool's contract.

Graded by running the delivered suite against the slugify task's reference
tool (it must pass) and against faulty tools the agent never sees (each
must be caught). Stories import the brief from
`oracle.tasks.slugify_tests.contract`; the engine reaches this task only
through `TASK` (found by `oracle.tasks.load("slugify-tests")`).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from oracle.checks import Check, CheckRegistry
from oracle.task import OracleTask
from oracle.tasks.slugify_tests import contract, judging, reference
from oracle.tasks.slugify_tests.checks import REGISTRY
from oracle.tasks.slugify_tests.structure import structure_checks


class SlugifyTestsTask(OracleTask):
    """One test_slugify.py, run against the reference tool and every faulty one."""

    name: ClassVar[str] = "slugify-tests"
    modes: ClassVar[tuple[str, ...]] = contract.MODES
    default_mode: ClassVar[str | None] = contract.MODES[0]
    contract: ClassVar[ModuleType] = contract
    checks: ClassVar[CheckRegistry] = REGISTRY
    collector: ClassVar[Path] = Path(__file__).with_name("collector.py")
    observations = judging.Observations

    def structure(self, delivery: Path) -> tuple[list[Check], Path | None]:
        return structure_checks(delivery)

    def plan(self, mode: str, project: Path, agent_tests: bool) -> dict[str, Any]:
        self.require_mode(mode)
        return judging.collector_plan(project)

    def judge(self, mode: str, observed: judging.Observations) -> list[Check]:  # type: ignore[override]
        self.require_mode(mode)
        return judging.judge(observed)

    def reference_solution(self) -> dict[str, str]:
        return reference.files()


TASK = SlugifyTestsTask()
