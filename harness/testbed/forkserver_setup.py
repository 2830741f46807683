"""The forkserver's last preload: set it up for forking controllers, after everything else is imported.

- Its page templates are compiled: each controller would otherwise compile
  every template it renders, again.
- Its objects are frozen out of garbage collection: a forked controller's
  first collection would otherwise walk (and so copy) every page of them,
  0.13 CPU-s of each start.
- It ignores SIGHUP and SIGTERM. It shares the harness's process group, so
  a closed terminal or a signal to the whole group would end it before the
  harness had stopped its controllers, and a controller whose forkserver is
  gone reads as exited. It still ends when the harness does (its pipe
  closes) and is killed with the harness's run folder. Each controller puts
  both signals back to their defaults.
"""

import gc
import signal

from harness.testbed.web import compile_templates

compile_templates()
gc.freeze()
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
