"""Named failpoints: the places in the product where a calibration defect may act, inert in every normal run.

The product passes what it computed through a named point,
``value = failpoint("download.bytes", value, delivery=item)``, in the manner
of fail-rs's ``fail_point!`` or etcd's gofail: with nothing armed at the name
the value comes back unchanged, so the product's code reads as the product
(a reader sees a named point, not a branch). A point with no value marks a
moment (``failpoint("stop.after", run=row)``). A point whose value is a
function lets an armed action stand in for that step of the product.

This module imports nothing of the product on purpose: every product module
may call it, and only the defects (``testbed.defects``) arm it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

T = TypeVar("T")

Action = Callable[..., Any]
"""``action(value, **context)``: what an armed point returns instead of ``value``."""

_armed: dict[str, list[Action]] = {}


@overload
def failpoint(name: str, /, **context: Any) -> None: ...
@overload
def failpoint(name: str, value: T, /, **context: Any) -> T: ...
def failpoint(name: str, value: Any = None, /, **context: Any) -> Any:
    """``value`` as each action armed at ``name`` leaves it (in the order armed); ``value`` itself when none is."""
    for action in _armed.get(name, ()):
        value = action(value, **context)
    return value


def arm(name: str, action: Action) -> None:
    """Have ``action`` act at the point ``name`` from now on, after any armed there before."""
    _armed.setdefault(name, []).append(action)


def disarm_all() -> None:
    """Every point inert again."""
    _armed.clear()
