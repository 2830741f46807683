"""One lock for importing the MCP SDK, which the controller loads lazily from two threads.

The tool server loads in a worker thread (``mcp_mount``) while a request
thread may make the first service call (``service_client``). Two threads
importing the SDK's package at once meet its modules half initialised
(``ImportError: ... partially initialized module``), so both import under
this lock; once imported, the SDK is read from ``sys.modules`` without it.
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType

_IMPORTING = threading.Lock()


def import_module(name: str) -> ModuleType:
    """``importlib.import_module`` for a module that imports the MCP SDK, one thread at a time."""
    with _IMPORTING:
        return importlib.import_module(name)
