"""One call on a thread of its own, its outcome waited for: what the oracle runs beside a grade.

Not concurrent.futures: importing it (with logging and traceback, which it
imports) cost the command line's container request more than the few
threads a grade starts, and a grade of one ZIP needs no pool at all.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Task(Generic[T]):
    """A call running on a thread of its own; `result` waits for it, then returns what it returned or raises what it raised.

    Never a daemon thread: an interpreter that exits normally waits for the
    call (an engine request) to finish, so what it created is known and
    removed.
    """

    def __init__(self, call: Callable[[], T], name: str) -> None:
        self._call = call
        self._done = threading.Event()
        self._value: T | None = None
        self._error: BaseException | None = None
        threading.Thread(target=self._run, name=name).start()

    def _run(self) -> None:
        try:
            self._value = self._call()
        except BaseException as error:  # noqa: BLE001  (handed to whoever asks for the result)
            self._error = error
        finally:
            self._done.set()

    def error(self) -> BaseException | None:
        """What the call raised (None when it returned), once it is over."""
        self._done.wait()
        return self._error

    def result(self) -> T:
        if self.error() is not None:
            raise self._error  # type: ignore[misc]
        return self._value  # type: ignore[return-value]

    def outcome(self) -> T | None:
        """What the call returned, or None when it raised (then nothing of it is on the engine)."""
        return None if self.error() is not None else self._value
