"""The task page's pushed live part: a commit wakes the waiting streams, a stream sends only what changed, and a
closed watch ends every stream (a stopping controller would otherwise wait for its open pages)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

from harness.testbed import live
from harness.testbed.db import Database, now
from harness.testbed.live import QUIET_RENDER_S, LiveChanges, stream

T = TypeVar("T")


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own: a worker that played a browser test keeps Playwright's loop in this one."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _commit(database: Path) -> None:
    """A write on a connection of its own, as a request's thread makes one."""
    with Database(database).transaction() as conn:
        conn.execute("UPDATE company SET name = ? WHERE id = 1", (f"Renamed {now()}",))


def test_a_commit_on_another_connection_wakes_a_waiting_stream(tmp_path: Path) -> None:
    database = Database(tmp_path / "testbed.sqlite3").path
    changes = LiveChanges(database, interval_s=0.005)
    changes.start()

    async def waited() -> int:
        version = changes.version
        waiting = asyncio.create_task(changes.after(version, timeout_s=QUIET_RENDER_S * 4))
        await asyncio.to_thread(_commit, database)
        await waiting
        return changes.version - version

    try:
        assert _run(waited()) >= 1, "the commit was never seen: the wait ran out instead"
    finally:
        changes.close()


def test_closing_ends_a_stream_that_waits_for_a_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    changes = LiveChanges(Database(tmp_path / "testbed.sqlite3").path)  # never started: no commit would wake it
    monkeypatch.setattr(live, "QUIET_RENDER_S", 3600.0)  # only the close can end the wait

    async def streamed() -> list[str]:
        events = stream(changes, lambda: "<p>never rendered</p>", "<p>first</p>", changes.version)
        first = await anext(events)
        await asyncio.to_thread(changes.close)
        rest = [event async for event in events]
        return [first, *rest]

    events = _run(asyncio.wait_for(streamed(), 600))  # a stream the close did not wake hangs: fail instead
    assert events == ["retry: 250\n\ndata: <p>first</p>\n\n"]


class _Changes:
    """One change at each wait, then closed: the stream's view of ``steps`` commits."""

    def __init__(self, steps: int) -> None:
        self.version, self.steps, self.closed = 0, steps, False

    async def after(self, version: int, timeout_s: float) -> None:
        if self.version >= self.steps:
            self.closed = True
        else:
            self.version += 1


def test_a_stream_sends_a_fragment_only_when_it_changed() -> None:
    rendered = iter(["<p>a</p>", "<p>b</p>", "<p>b</p>\n<i>c</i>"])
    changes = cast(LiveChanges, _Changes(steps=3))

    async def streamed() -> list[str]:
        return [event async for event in stream(changes, lambda: next(rendered), "<p>a</p>", 0)]

    assert _run(streamed()) == [
        "retry: 250\n\ndata: <p>a</p>\n\n",
        "data: <p>b</p>\n\n",
        "data: <p>b</p>\ndata: <i>c</i>\n\n",
    ]


def test_every_write_is_a_transaction_the_live_pages_hear_of(tmp_path: Path) -> None:
    """The live pages look at once after this controller's commits because ``on_commit`` hears of every write: a write
    outside a transaction is refused, and a failed transaction leaves the connection as read-only as before."""
    db = Database(tmp_path / "testbed.sqlite3")
    heard: list[str] = []
    db.on_commit = lambda: heard.append("commit")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        db.connection().execute("UPDATE company SET name = 'unannounced' WHERE id = 1")
    with pytest.raises(ZeroDivisionError), db.transaction() as conn:
        conn.execute("UPDATE company SET name = 'rolled back' WHERE id = 1")
        _ = 1 / 0
    with db.transaction() as conn:
        conn.execute("UPDATE company SET name = 'announced' WHERE id = 1")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        db.connection().execute("UPDATE company SET name = 'unannounced' WHERE id = 1")
    assert heard == ["commit"] and db.one("SELECT name FROM company")["name"] == "announced"  # type: ignore[index]
