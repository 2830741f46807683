"""The project's own test configuration reaches a plug-in's tests too: nothing a test starts outlives it."""

from tests.conftest import nothing_left_behind

__all__ = ["nothing_left_behind"]
