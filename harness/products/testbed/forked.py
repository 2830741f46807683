"""Controllers forked from one parent that has already imported the testbed, instead of fresh interpreters.

A fresh ``python -m harness.testbed serve`` imports FastAPI, pydantic and
the app before it can answer, and a calibration run starts a controller for
every cell and again at every restart fault: that import was a large share of
all the CPU calibration used (docs/measurements.md, "The testbed's
controllers"). So each
harness process keeps one multiprocessing forkserver that imports the
testbed once, and each controller is a fork of it. The controller is
otherwise what ``python -m harness.testbed serve`` makes: its own session, its own
log on stdout and stderr, its data folder as working directory, the
harness's environment at that moment, the same argument parsing and exit
codes.

The forkserver is started by the first controller (from the harness's own
run folder, whose ``TMPDIR`` it and every controller inherit, so a killed
harness's controllers are still found and ended). It is stopped when the
process's cells are over (``stop``), and otherwise goes away with the
harness process that owns it.
"""

from __future__ import annotations

import atexit
import io
import multiprocessing
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from multiprocessing import forkserver, popen_forkserver, reduction, resource_tracker, spawn, util
from pathlib import Path
from typing import Any

from harness.testbed import forked_child

_CORE_MODULES = (
    "harness.testbed.__main__",
    "harness.testbed.forked_child",
    # What uvicorn and FastAPI import only once serving: each start would import them again otherwise.
    "uvicorn.protocols.http.auto",
    "uvicorn.protocols.websockets.auto",
    "uvicorn.loops.auto",
    "uvicorn.lifespan.on",
    "anyio._backends._asyncio",
    "fastapi.telemetry._runtime",
)
MCP_MODULES = (
    "mcp.client.session",
    "mcp.client.streamable_http",
    "mcp.shared._httpx_utils",
    "harness.testbed.mcp_tools",
)
"""The MCP SDK, which a controller loads at its first service call or live agent's tool call.

Its import is on the request's path of every controller that needs it; in the
forkserver it is paid once, but the forkserver then takes longer to start,
which a process playing one cell would wait for at its first controller
whether the cell needs the SDK or not: only a process that forks many
controllers preloads it (the figures: docs/measurements.md).
"""
_LAST_MODULE = "harness.testbed.forkserver_setup"  # freezes what the modules before it made


def preloaded_modules(many_controllers: bool) -> list[str]:
    """What the forkserver imports before its first fork."""
    return [*_CORE_MODULES, *(MCP_MODULES if many_controllers else ()), _LAST_MODULE]


_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(preloaded_modules(many_controllers=False))
_STARTING = threading.Lock()
"""One start at a time: multiprocessing's bookkeeping of a process's children is not made for threads."""


def _own_socket_folder() -> None:
    """Give multiprocessing the folder for its forkserver's socket, before it makes its own.

    Its own would be removed by a finalizer at interpreter exit, which prints
    a traceback when the harness has already removed its run folder (and the
    socket folder in it). This one lives in the run folder too, so a killed
    harness's is swept with it; outside a run folder it goes at exit.
    """
    config = multiprocessing.current_process()._config  # type: ignore[attr-defined]
    if "tempdir" not in config:
        config["tempdir"] = folder = tempfile.mkdtemp(prefix="forkserver-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)


class _WithoutCallersMain(popen_forkserver.Popen):
    """multiprocessing's forkserver start, except that the child does not import the caller's main module.

    multiprocessing runs the parent's ``__main__`` again in every child (as
    ``__mp_main__``) so that pickled functions defined there resolve. A
    controller needs none of that: it cost each start the harness's command
    line imports, a script read from stdin could not be found again (every
    controller exited 1), and a script without a ``__main__`` guard would run
    again in each controller. This is ``popen_forkserver.Popen._launch``
    (Python 3.11) with those two entries left out of the preparation data.
    """

    def _launch(self, process_obj: Any) -> None:
        prepared = spawn.get_preparation_data(process_obj._name)
        prepared.pop("init_main_from_name", None)
        prepared.pop("init_main_from_path", None)
        buffer = io.BytesIO()
        multiprocessing.context.set_spawning_popen(self)  # type: ignore[attr-defined]
        try:
            reduction.dump(prepared, buffer)
            reduction.dump(process_obj, buffer)
        finally:
            multiprocessing.context.set_spawning_popen(None)  # type: ignore[attr-defined]
        self.sentinel, writer = forkserver.connect_to_new_process(self._fds)  # type: ignore[attr-defined]
        parent_writer = os.dup(writer)  # the child's sentinel of this process, as in the original
        self.finalizer = util.Finalize(self, util.close_fds, (parent_writer, self.sentinel))  # type: ignore[attr-defined]
        with open(writer, "wb", closefd=True) as data:
            data.write(buffer.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


class _ControllerProcess(_CONTEXT.Process):  # type: ignore[name-defined,misc]
    """A forkserver process started through ``_WithoutCallersMain``, handed to the forkserver as the plain
    forkserver process it is there: unpickling this class would import the harness's side of the testbed
    (this module's package: the driver, its page objects, Playwright) into the forkserver's child."""

    @staticmethod
    def _Popen(process_obj: Any) -> _WithoutCallersMain:
        return _WithoutCallersMain(process_obj)

    def __reduce__(self) -> tuple[Any, ...]:
        return object.__new__, (_CONTEXT.Process,), self.__dict__


def _start_forkserver(many_controllers: bool) -> None:
    with _STARTING:
        _own_socket_folder()
        if not forkserver._forkserver._forkserver_pid:  # type: ignore[attr-defined]  # read at its start only
            _CONTEXT.set_forkserver_preload(preloaded_modules(many_controllers))
        forkserver.ensure_running()  # type: ignore[attr-defined]


def warm_up(many_controllers: bool) -> None:
    """Start the forkserver in a background thread: its imports overlap the browser's launch, not the first start."""
    threading.Thread(target=_start_forkserver, args=(many_controllers,), name="forkserver-warm-up", daemon=True).start()


def stop() -> None:
    """End the forkserver and multiprocessing's resource tracker once this process has stopped its last controller.

    They are the harness's own helpers, not something a cell left behind, but
    they name the run folder until the harness exits: ended here, the run
    folder's release has nothing of theirs to end and report. A controller
    started later starts them again.
    """
    with _STARTING:
        forkserver._forkserver._stop()  # type: ignore[attr-defined]
        resource_tracker._resource_tracker._stop()  # type: ignore[attr-defined]


class ForkedController:
    """A forked controller, seen through the part of ``subprocess.Popen`` the instance and its stop use."""

    def __init__(self, argv: list[str], cwd: Path, log: Path) -> None:
        self.args = ["python", "-m", "harness.testbed", *argv]
        # Daemonic: should a controller outlive every teardown, the harness's exit stops it rather than waits for it.
        self._process = _ControllerProcess(
            target=forked_child.serve,
            args=(argv, str(cwd), str(log), dict(os.environ)),
            name="testbed-controller",
            daemon=True,
        )
        with _STARTING:
            _own_socket_folder()
            self._process.start()
        assert self._process.pid is not None
        self.pid: int = self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.exitcode

    def poll(self) -> int | None:
        return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        if self._process.exitcode is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return self._process.exitcode

    def send_signal(self, sig: int) -> None:
        if self._process.exitcode is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)
