"""Oracle tasks, one subpackage each, found by name so the engine never imports a task module directly.

`oracle/tasks/<name>/__init__.py` exposes `TASK`, an `oracle.task.OracleTask`.
Only the task asked for is imported, never all of them.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from oracle.task import OracleTask

DEFAULT_TASK = "slugify"


class UnknownTask(ValueError):
    """A task name with no folder under oracle/tasks: a usage error, not a failed delivery."""


def known() -> list[str]:
    """Names of every task folder, sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)


@cache
def load(name: str = DEFAULT_TASK) -> OracleTask:
    """The task called `name`, or UnknownTask listing the known ones."""
    if name not in known():
        raise UnknownTask(f"unknown oracle task {name!r}; known: {', '.join(known())}")
    from oracle.task import OracleTask  # here, not at the top: `oracle.tasks.DEFAULT_TASK` stays free to import

    task = getattr(importlib.import_module(f"{__name__}.{name}"), "TASK", None)
    if not isinstance(task, OracleTask) or task.name != name:
        raise UnknownTask(f"oracle/tasks/{name} does not expose TASK, an OracleTask named {name!r}")
    return task
