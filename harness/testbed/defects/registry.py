"""The defect registry: each defect declared once, beside its code, by the failpoint it acts at.

An area module (``downloads``, ``messages``, ``stop``, ...) declares each of
its defects with ``@defect(name, at=point, summary=...)`` on the action that
breaks the product there. The point's name is the whole pointer: the product
calls ``failpoint(point, ...)`` (:mod:`harness.testbed.failpoints`), and switching the
defect on arms its action at that point.
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
    "drain",
    "delegation",
    "ui",
    "task-status",
    "bookkeeping",
    "decisions",
    "credentials",
    "api",
    "skills",
    "providers",
    "team",
    "forms",
    "routines",
    "budgets",
    "sandbox",
]

A = TypeVar("A", bound=Callable[..., Any])


class Defect(BaseModel):
    """One named defect: the part of the product it breaks, the failpoint it acts at, what a user would see."""

    model_config = ConfigDict(frozen=True)

    name: str
    area: Area
    point: str = Field(description="the failpoint the action is armed at (see testbed.failpoints)")
    summary: str
    action: Callable[..., Any] = Field(exclude=True, repr=False)


REGISTRY: dict[str, Defect] = {}


def declarer(area: Area) -> Callable[..., Callable[[A], A]]:
    """The ``defect`` decorator of one area module: ``@defect(name, at=point, summary=...)`` on its action."""

    def defect(name: str, *, at: str, summary: str) -> Callable[[A], A]:
        def declare(action: A) -> A:
            if name in REGISTRY:
                raise ValueError(f"defect {name!r} is declared twice")
            REGISTRY[name] = Defect(name=name, area=area, point=at, summary=summary, action=action)
            return action

        return declare

    return defect
