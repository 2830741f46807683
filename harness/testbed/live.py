"""A task page's live part, pushed: the page learns of a change (a run's end) as it is committed, not at a poll.

The page keeps one server-sent event stream open (``/tasks/{id}/live/events``).
One watcher thread per controller reads SQLite's ``data_version``, which
changes with every commit of any other connection (each request's, the
scheduler's, another controller process's), and wakes the streams; each
stream renders the live fragment again after a change and sends it only when
it differs from what it sent last. So an idle page costs nothing, and the
fragment is the one ``/tasks/{id}/live`` and the first page load render.

A stopping server closes the streams first (:class:`LiveServer`): uvicorn
waits for every open response before it shuts down, and a page left open
would hold a restart for the whole graceful-shutdown allowance. The page
reconnects by itself and is sent the state it missed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import uvicorn
from starlette.concurrency import run_in_threadpool

WATCH_INTERVAL_S = 0.02
"""How often the watcher reads ``data_version``: a few microseconds each, and the most a page lags a commit by."""
QUIET_RENDER_S = 15.0
"""A stream renders again after this long without a commit (a state that changed without one is still shown)."""
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
        self._thread = threading.Thread(target=self._watch, name="live-changes", daemon=True)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """End every stream and the watcher; once closed, a stream that opens ends after its first render."""
        self._closed.set()
        self._wake()

    def _watch(self) -> None:
        connection = sqlite3.connect(self.database, isolation_level=None, check_same_thread=False)
        try:
            last = connection.execute("PRAGMA data_version").fetchone()[0]
            while not self._closed.wait(self.interval_s):
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
    """uvicorn's server, which ends the live streams before it waits for the open responses to finish."""

    def __init__(self, config: uvicorn.Config, changes: LiveChanges) -> None:
        super().__init__(config)
        self.changes = changes

    async def shutdown(self, sockets: list | None = None) -> None:  # type: ignore[type-arg]
        self.changes.close()
        await super().shutdown(sockets=sockets)


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
