"""Oracle tasks, one subpackage each, found by name so the engine never imports a task module directly.

`oracle/tasks/<folder>/__init__.py` exposes `TASK`, an `oracle.task.OracleTask`.
Only the task asked for is imported, never all of them. A task's name may
hold hyphens (`slugify-tests`, as `--task` says it) while a package name
cannot, so the folder is the name with `_` for `-`: `folder()` is the one
place that mapping lives. An installed package adds a task through the
entry-point group `everyday_evals.oracle_tasks` (name = the task's name,
value = its module, which exposes `TASK`), the same door as a folder here.
"""

from __future__ import annotations

from functools import cache

from oracle.task_errors import DuplicateTask, UnknownMode, UnknownTask

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads this name the same way)
if TYPE_CHECKING:
    from importlib.metadata import EntryPoints

    from oracle.task import OracleTask

DEFAULT_TASK = "slugify"

__all__ = ["DEFAULT_TASK", "DuplicateTask", "UnknownMode", "UnknownTask", "folder", "known", "load"]


def folder(name: str) -> str:
    """The package folder of the task called `name` (a hyphen cannot be part of a Python package name)."""
    return name.replace("-", "_")


ENTRY_POINTS = "everyday_evals.oracle_tasks"


def entry_points(group: str) -> EntryPoints:
    """The installed plug-ins' entry points in `group`.

    importlib.metadata is imported at the first call, not with this module:
    the command line imports DEFAULT_TASK before it asks for its container,
    and the import (about 25 ms of CPU) would delay that request.
    """
    from importlib.metadata import entry_points as installed

    return installed(group=group)


def _modules() -> dict[str, str]:
    """Each task's name and the module that exposes its `TASK`: the folders here, then installed plug-ins.

    A plug-in's task named like a built-in one, or like another plug-in's,
    is refused with DuplicateTask naming both modules.
    """
    import pkgutil  # here: the command line imports DEFAULT_TASK before it asks for its container

    found = {m.name.replace("_", "-"): f"{__name__}.{m.name}" for m in pkgutil.iter_modules(__path__) if m.ispkg}
    for entry in entry_points(group=ENTRY_POINTS):
        if (other := found.get(entry.name)) is not None and other != entry.value:
            raise DuplicateTask(
                f"oracle task {entry.name!r} is registered twice: by {entry.value} (entry point group {ENTRY_POINTS})"
                f" and by {other}; rename the plug-in's task"
            )
        found[entry.name] = entry.value
    return found


def known() -> list[str]:
    """Names of every task, sorted."""
    return sorted(_modules())


@cache
def load(name: str = DEFAULT_TASK) -> OracleTask:
    """The task called `name`, or UnknownTask listing the known ones."""
    if name not in known():
        raise UnknownTask(f"unknown oracle task {name!r}; known: {', '.join(known())}")
    from importlib import import_module

    from oracle.task import OracleTask  # here, not at the top: `oracle.tasks.DEFAULT_TASK` stays free to import

    module = _modules()[name]
    task = getattr(import_module(module), "TASK", None)
    if not isinstance(task, OracleTask) or task.name != name:
        raise UnknownTask(f"{module} does not expose TASK, an OracleTask named {name!r}")
    return task
