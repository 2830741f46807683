"""A task page's live part, pushed: the page learns of a change (a run's end) as it is committed, not at a poll.

The page keeps one server-sent event stream open (``/tasks/{id}/live/events``).
One watcher thread per controller reads SQLite's ``data_version``, which
changes with every commit of any other connection (each request's, the
scheduler's, another controller process's), and wakes the streams; each
stream renders the live fragment again after a change and sends it only when
it differs from what it sent last. So an idle page costs nothing, and the
fragment is the one ``/tasks/{id}/live`` and the first page load render.

The watcher looks ``GATHER_S`` after this controller committed (``Database.on_commit``,
which hears of every write the controller makes), and otherwise every
``WATCH_INTERVAL_S``, for another process's commits.

A stopping server closes the streams first (:class:`LiveServer`): uvicorn
waits for every open response before it shuts down, and a page left open
would hold a restart for the whole graceful-shutdown allowance. The page
reconnects by itself and is sent the state it missed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import FrameType

import uvicorn
from starlette.concurrency import run_in_threadpool

WATCH_INTERVAL_S = 0.1
"""How often the watcher reads ``data_version`` when nothing told it of a commit: the most a page lags a commit this
controller did not announce (another process's) by. Each look wakes a thread, which an idle controller pays for."""
GATHER_S = 0.02
"""How long the watcher lets the commits of one burst (a runner's receipt, message and status) gather after it is told
of one, so that a page is sent the burst's end state once, not each step of it."""
QUIET_RENDER_S = 15.0
"""A stream renders again after this long without a commit (a state that changed without one is still shown)."""
TICK_S = 0.1
"""uvicorn's own tick: how often the server refreshes its date header and checks its request limit."""
SHUTDOWN_POLL_S = 0.005
"""How often a stopping server looks whether its open responses have finished."""
RECONNECT_MS = 250
"""How soon the page's EventSource opens its stream again once it broke (a controller restarting)."""


class LiveChanges:
    """Counts the commits to the controller's database and wakes the coroutines waiting for the next one."""

    def __init__(self, database: Path, interval_s: float = WATCH_INTERVAL_S) -> None:
        self.database = database
        self.interval_s = interval_s
        self.version = 0
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._poked = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="live-changes", daemon=True)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """End every stream and the watcher; once closed, a stream that opens ends after its first render."""
        self._closed.set()
        self._poked.set()
        self._wake()

    def poke(self) -> None:
        """Something may just have committed: the watcher looks within ``GATHER_S``, not at its next interval (any
        thread)."""
        self._poked.set()

    def _watch(self) -> None:
        connection = sqlite3.connect(self.database, isolation_level=None, check_same_thread=False)
        try:
            last = connection.execute("PRAGMA data_version").fetchone()[0]
            while True:
                if self._poked.wait(self.interval_s):
                    self._closed.wait(GATHER_S)
                self._poked.clear()
                if self._closed.is_set():
                    break
                seen = connection.execute("PRAGMA data_version").fetchone()[0]
                if seen != last:
                    last, self.version = seen, self.version + 1
                    self._wake()
        finally:
            connection.close()

    def _wake(self) -> None:
        with self._lock:
            waiters = list(self._waiters)
        for loop, event in waiters:
            with contextlib.suppress(RuntimeError):  # its loop has closed: nobody waits there any more
                loop.call_soon_threadsafe(event.set)

    async def after(self, version: int, timeout_s: float) -> None:
        """Return once the database changed after ``version``, the changes closed, or ``timeout_s`` passed."""
        event = asyncio.Event()
        waiter = (asyncio.get_running_loop(), event)
        with self._lock:
            self._waiters.add(waiter)
        try:
            if self.version == version and not self.closed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), timeout_s)
        finally:
            with self._lock:
                self._waiters.discard(waiter)


class LiveServer(uvicorn.Server):
    """uvicorn's server, stopping as soon as it is told to: it ends the live streams first, and waits for the
    open responses by looking often rather than in uvicorn's tenth-of-a-second steps.

    uvicorn notices a SIGTERM at its next tick (every 0.1 s), then pauses 0.1 s after asking its connections to
    close before it looks whether they have, and looks again every 0.1 s. Here the signal wakes the main loop at
    once, and the connections are looked at every ``SHUTDOWN_POLL_S`` from the start: the same graceful stop
    (every response in progress finishes, within ``timeout_graceful_shutdown``; then the lifespan's shutdown),
    without the waits in between.
    """

    def __init__(self, config: uvicorn.Config, changes: LiveChanges) -> None:
        super().__init__(config)
        self.changes = changes
        self._exit: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    async def main_loop(self) -> None:
        """uvicorn's ticks (the date header, the request limit), each cut short by a signal to stop."""
        self._exit = (asyncio.get_running_loop(), asyncio.Event())
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._exit[1].wait(), TICK_S)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if self._exit is not None:
            loop, event = self._exit
            with contextlib.suppress(RuntimeError):  # the loop has closed: nothing waits for the tick
                loop.call_soon_threadsafe(event.set)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Stop accepting, end the live streams, let every response in progress finish, then the lifespan's end."""
        self.changes.close()
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        try:
            async with asyncio.timeout(self.config.timeout_graceful_shutdown):
                while (self.server_state.connections or self.server_state.tasks) and not self.force_exit:
                    await asyncio.sleep(SHUTDOWN_POLL_S)
                for server in self.servers:
                    await server.wait_closed()
        except TimeoutError:
            logging.getLogger("testbed").error(
                "cancelling %s request(s) still running after the graceful stop", len(self.server_state.tasks)
            )
            for task in self.server_state.tasks:
                task.cancel(msg="the graceful stop's time ran out")
        if not self.force_exit:
            await self.lifespan.shutdown()


def event(html: str) -> str:
    """One server-sent event whose data is ``html`` (an EventSource joins its lines again with newlines)."""
    return "".join(f"data: {line}\n" for line in html.split("\n")) + "\n"


async def stream(changes: LiveChanges, render: Callable[[], str], first: str, version: int) -> AsyncIterator[str]:
    """``first`` (rendered at ``version``), then ``render()`` after every later commit, sent whenever it differs
    from what was sent last.

    ``render`` runs in the thread pool (it reads the database); a render that fails ends the stream, and the
    page opens it again.
    """
    sent = first
    yield f"retry: {RECONNECT_MS}\n\n" + event(sent)
    while not changes.closed:
        await changes.after(version, QUIET_RENDER_S)
        if changes.closed:
            return
        version = changes.version
        html = await run_in_threadpool(render)
        if html != sent:
            sent = html
            yield event(html)
