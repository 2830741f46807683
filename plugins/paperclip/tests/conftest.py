"""The project's own test configuration reaches a plug-in's tests too: nothing a test starts outlives it.

Run on their own (``pytest plugins/paperclip/tests``), these tests do not load tests/conftest.py, so the plug-ins it
names are named here as well: the harness's pytest plug-in (the browser's launch options, the session's browser) and
the needs markers. pytest registers each once in a run of the whole suite.
"""

from tests.conftest import nothing_left_behind

pytest_plugins = ["harness.running.plugin", "tests.needs"]

__all__ = ["nothing_left_behind"]
