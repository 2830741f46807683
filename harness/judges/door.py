"""The judges' door: an entry-point group, the built-ins registered exactly like an outside package's judge.

An entry point in ``everyday_evals.judges`` names either a judge (an object
with ``name``, ``version`` and ``judge(request, package)``) or a factory that
takes :class:`JudgeSettings` and returns one (a judge that needs an endpoint).
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Protocol, runtime_checkable

from harness.judges.models import JudgeRequest, JudgeResult
from harness.judges.settings import JudgeSettings

JUDGES_GROUP = "everyday_evals.judges"


@runtime_checkable
class Judge(Protocol):
    """The one method a judge implements: a request and the package folder in, a result out."""

    name: str
    version: str
    description: str

    def judge(self, request: JudgeRequest, package: Path) -> JudgeResult: ...


class JudgeDoorError(RuntimeError):
    """A judge that cannot be found or loaded: one line saying which and why."""


@cache
def _entries() -> dict[str, object]:
    found: dict[str, object] = {}
    for entry in sorted(entry_points(group=JUDGES_GROUP), key=lambda ep: ep.name):
        try:
            found[entry.name] = entry.load()
        except Exception as error:  # an outside package's import error is reported, not raised as ours
            raise JudgeDoorError(
                f"{JUDGES_GROUP} {entry.name} ({entry.value}): {type(error).__name__}: {error}"
            ) from error
    if not found:
        raise JudgeDoorError(f"no entry points in {JUDGES_GROUP}: install the project (`make venv`)")
    return found


def judge_names() -> list[str]:
    return sorted(_entries())


def load_judge(name: str, settings: JudgeSettings | None = None) -> Judge:
    """The judge registered as ``name``, built with ``settings`` when it is a factory."""
    entries = _entries()
    if name not in entries:
        raise JudgeDoorError(f"no judge {name!r}; known: {', '.join(sorted(entries))}")
    loaded = entries[name]
    judge = loaded if isinstance(loaded, Judge) else loaded(settings or JudgeSettings())  # type: ignore[operator]
    if not isinstance(judge, Judge):
        raise JudgeDoorError(
            f"{JUDGES_GROUP} {name} gave a {type(judge).__name__}, which has no judge(request, package)"
        )
    return judge


def describe() -> list[tuple[str, str]]:
    """Each registered judge's name and one line about it, without building a factory's judge."""
    rows = []
    for name, loaded in sorted(_entries().items()):
        doc = getattr(loaded, "description", None) or (getattr(loaded, "__doc__", None) or "").strip()
        rows.append((name, doc.splitlines()[0] if doc else ""))
    return rows
