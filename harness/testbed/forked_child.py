"""What a controller forked from the harness's forkserver runs first: it becomes ``python -m harness.testbed``.

It lives in the product's own package, so that neither the forkserver nor a
controller imports the harness's side of the testbed (its driver, page
objects and Playwright) to find it (``harness.products.testbed.forked``).
"""

from __future__ import annotations

import os
import signal
import sys


def serve(argv: list[str], cwd: str, log: str, environment: dict[str, str]) -> None:
    """The forked child: become ``python -m harness.testbed <argv>`` in its own session, writing to ``log``.

    ``environment`` is the harness's at this start, as a fresh process would
    inherit it: the forkserver's own is the one it had when it started.
    """
    os.environ.clear()
    os.environ.update(environment)
    for ignored_by_the_forkserver in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(ignored_by_the_forkserver, signal.SIG_DFL)
    os.setsid()
    out = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    os.chdir(cwd)
    from harness.testbed.__main__ import main

    sys.exit(main(argv))
