"""Oracle tasks, one subpackage each, found by name so the engine never imports a task module directly.

`oracle/tasks/<folder>/__init__.py` exposes `TASK`, an `oracle.task.OracleTask`.
Only the task asked for is imported, never all of them. A task's name may
hold hyphens (`slugify-tests`, as `--task` says it) while a package name
cannot, so the folder is the name with `_` for `-`: `folder()` is the one
place that mapping lives.
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


class UnknownMode(ValueError):
    """A mode the task does not have: a usage error, not a failed delivery.

    Here beside UnknownTask, not in oracle.task: the command line catches
    both around every command, and importing oracle.task pulls in pydantic,
    which a grade imports only after its container is on its way.
    """


def folder(name: str) -> str:
    """The package folder of the task called `name` (a hyphen cannot be part of a Python package name)."""
    return name.replace("-", "_")


def known() -> list[str]:
    """Names of every task (its folder with `-` for `_`), sorted."""
    return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(__path__) if m.ispkg)


@cache
def load(name: str = DEFAULT_TASK) -> OracleTask:
    """The task called `name`, or UnknownTask listing the known ones."""
    if name not in known():
        raise UnknownTask(f"unknown oracle task {name!r}; known: {', '.join(known())}")
    from oracle.task import OracleTask  # here, not at the top: `oracle.tasks.DEFAULT_TASK` stays free to import

    task = getattr(importlib.import_module(f"{__name__}.{folder(name)}"), "TASK", None)
    if not isinstance(task, OracleTask) or task.name != name:
        raise UnknownTask(f"oracle/tasks/{folder(name)} does not expose TASK, an OracleTask named {name!r}")
    return task
