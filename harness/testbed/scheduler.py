"""Background scheduler: one thread that keeps runs moving.

Each tick fails runs whose runner died, queues runs for tasks with waiting
work and starts queued runs. It is a plain thread with a short interval: the
product is small and every state it acts on is in SQLite, so a restarted
controller simply carries on where the old one stopped. A request that
leaves work waiting wakes it, so the work starts as soon as it is stored.
"""

from __future__ import annotations

import logging
import threading

from . import interactions
from .controller import Controller

log = logging.getLogger("testbed.scheduler")


class Scheduler:
    def __init__(self, controller: Controller, interval: float = 0.1) -> None:
        self.controller = controller
        self.interval = interval
        self._stop = threading.Event()
        self._woken = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="scheduler", daemon=True)

    def start(self) -> None:
        self.controller.recover()
        interactions.forward_approved_on_start(self.controller)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._woken.set()
        self._thread.join(timeout=5)

    def wake(self) -> None:
        """Tick now rather than at the end of the interval: a request has just left work waiting."""
        self._woken.set()

    def tick(self) -> None:
        self.controller.monitor()
        self.controller.stop_paused()
        self.controller.queue_pending()
        self.controller.start_queued()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._woken.clear()  # a wake during the tick is kept: the next tick follows at once
            try:
                self.tick()
            except Exception:  # keep scheduling; the next tick retries from persisted state
                log.exception("scheduler tick failed")
            self._woken.wait(self.interval)
