"""Controllers forked from one parent that has already imported the testbed, instead of fresh interpreters.

A fresh ``python -m testbed serve`` spends about 0.45 CPU-s importing
FastAPI, pydantic and the app before it can answer, and a calibration run
starts a controller for every cell and again at every restart fault: on two
cores that import was a tenth of all the CPU calibration used. So each
harness process keeps one multiprocessing forkserver that imports the
testbed once, and each controller is a fork of it. The controller is
otherwise what ``python -m testbed serve`` makes: its own session, its own
log on stdout and stderr, its data folder as working directory, the
harness's environment at that moment, the same argument parsing and exit
codes.

The forkserver is started by the first controller (from the harness's own
run folder, whose ``TMPDIR`` it and every controller inherit, so a killed
harness's controllers are still found and ended) and goes away with the
harness process that owns it.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(
    [
        "testbed.__main__",
        # What uvicorn and FastAPI import only once serving (about 0.04 CPU-s of each start otherwise).
        "uvicorn.protocols.http.auto",
        "uvicorn.protocols.websockets.auto",
        "uvicorn.loops.auto",
        "uvicorn.lifespan.on",
        "anyio._backends._asyncio",
        "fastapi.telemetry._runtime",
        "harness.products.testbed.frozen",
    ]
)
_SOCKET_FOLDER_LOCK = threading.Lock()


def _own_socket_folder() -> None:
    """Give multiprocessing the folder for its forkserver's socket, before it makes its own.

    Its own would be removed by a finalizer at interpreter exit, which prints
    a traceback when the harness has already removed its run folder (and the
    socket folder in it). This one lives in the run folder too, so a killed
    harness's is swept with it; outside a run folder it goes at exit.
    """
    with _SOCKET_FOLDER_LOCK:
        config = multiprocessing.current_process()._config  # type: ignore[attr-defined]
        if "tempdir" not in config:
            config["tempdir"] = folder = tempfile.mkdtemp(prefix="forkserver-")
            atexit.register(shutil.rmtree, folder, ignore_errors=True)


def _serve(argv: list[str], cwd: str, log: str, environment: dict[str, str]) -> None:
    """The forked child: become ``python -m testbed <argv>`` in its own session, writing to ``log``.

    ``environment`` is the harness's at this start, as a fresh process would
    inherit it: the forkserver's own is the one it had when it started.
    """
    os.environ.clear()
    os.environ.update(environment)
    os.setsid()
    out = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    os.chdir(cwd)
    from testbed.__main__ import main

    sys.exit(main(argv))


class ForkedController:
    """A forked controller, seen through the part of ``subprocess.Popen`` the instance and its stop use."""

    def __init__(self, argv: list[str], cwd: Path, log: Path) -> None:
        self.args = ["python", "-m", "testbed", *argv]
        _own_socket_folder()
        # Daemonic: should a controller outlive every teardown, the harness's exit stops it rather than waits for it.
        self._process = _CONTEXT.Process(
            target=_serve, args=(argv, str(cwd), str(log), dict(os.environ)), name="testbed-controller", daemon=True
        )
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
