"""The story's own random inputs (nonces, contact markers, the ids a fixture makes up), drawn in one place.

A recorded agent's answers fit only the inputs it saw: a cassette therefore
keeps every value drawn here while it records, and hands the same values back,
kind by kind and in order, while it replays. Outside a cassette a draw is just
the fresh value. One attempt draws at a time in a process (each cell runs in
its own worker), so the draws in progress are the process's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from pydantic import BaseModel, ConfigDict


class DrawnInput(BaseModel):
    """One value the story drew, under the kind of thing it is (``nonce``, ``contact-marker``, ...)."""

    model_config = ConfigDict(frozen=True)

    kind: str
    value: str


class _Draws:
    def __init__(self, recorded: list[DrawnInput] | None) -> None:
        self.drawn: list[DrawnInput] = []
        self.recorded = list(recorded or [])
        self.lock = threading.Lock()

    def draw(self, kind: str, make: Callable[[], str]) -> str:
        with self.lock:
            again = next((i for i, d in enumerate(self.recorded) if d.kind == kind), None)
            value = self.recorded.pop(again).value if again is not None else make()
            self.drawn.append(DrawnInput(kind=kind, value=value))
            return value


_active: _Draws | None = None
_pair: list[list[DrawnInput]] | None = None
"""Inside ``same_inputs``: empty until the pair's first attempt has drawn, then holding its draws."""


def draw(kind: str, make: Callable[[], str]) -> str:
    """A fresh value from ``make``, or, while a cassette replays, the value recorded next for ``kind``."""
    return _active.draw(kind, make) if _active is not None else make()


@contextmanager
def drawing(recorded: list[DrawnInput] | None = None) -> Iterator[list[DrawnInput]]:
    """Collect the attempt's draws (the list is filled as it runs); with ``recorded``, hand those back first.

    Inside ``same_inputs`` without a cassette, the pair's first attempt's draws are what is handed back.
    """
    global _active
    if recorded is None and _pair:
        recorded = _pair[0]
    draws = _Draws(recorded)
    _active = draws
    try:
        yield draws.drawn
    finally:
        _active = None
        if _pair == []:
            _pair.append(list(draws.drawn))


@contextmanager
def same_inputs() -> Iterator[None]:
    """Every attempt played inside draws what the first one drew: a pair's variants see the same story inputs."""
    global _pair
    _pair = []
    try:
        yield
    finally:
        _pair = None
