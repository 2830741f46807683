"""The defect registry: each defect declared once, beside its code, by the failpoint it acts at.

An area module (``downloads``, ``messages``, ``stop``, ...) declares each of
its defects with ``@defect(name, at=point, summary=...)`` on the action that
breaks the product there. The point's name is the whole pointer: the product
calls ``failpoint(point, ...)`` (:mod:`testbed.failpoints`), and switching the
defect on arms its action at that point. A defect whose breakage takes two
steps of the product declares a second action under the same name, at its own
point and without a summary (``@defect(name, at=other_point)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

Area = Literal[
    "downloads",
    "messages",
    "runs",
    "stop",
    "restart",
    "delegation",
    "ui",
    "task-status",
    "bookkeeping",
    "decisions",
    "credentials",
    "api",
    "skills",
    "providers",
]

A = TypeVar("A", bound=Callable[..., Any])


class Act(BaseModel):
    """One action of a defect and the failpoint it is armed at (see testbed.failpoints)."""

    model_config = ConfigDict(frozen=True)

    point: str
    action: Callable[..., Any] = Field(exclude=True, repr=False)


class Defect(BaseModel):
    """One named defect: the part of the product it breaks, the failpoints it acts at, what a user would see."""

    model_config = ConfigDict(frozen=True)

    name: str
    area: Area
    summary: str
    acts: tuple[Act, ...]

    @property
    def points(self) -> list[str]:
        return [act.point for act in self.acts]


REGISTRY: dict[str, Defect] = {}


def declarer(area: Area) -> Callable[..., Callable[[A], A]]:
    """The ``defect`` decorator of one area module: ``@defect(name, at=point, summary=...)`` on its action;
    ``@defect(name, at=point)`` on a further action of a defect declared just before in the same module."""

    def defect(name: str, *, at: str, summary: str | None = None) -> Callable[[A], A]:
        def declare(action: A) -> A:
            act = Act(point=at, action=action)
            earlier = REGISTRY.get(name)
            if summary is not None and earlier is None:
                REGISTRY[name] = Defect(name=name, area=area, summary=summary, acts=(act,))
            elif summary is None and earlier is not None and earlier.area == area:
                REGISTRY[name] = earlier.model_copy(update={"acts": (*earlier.acts, act)})
            else:
                raise ValueError(f"defect {name!r}: one summary, at its first declaration, in one area")
            return action

        return declare

    return defect
