"""Ctrl-C, however it arrives, ends an attempt as "interrupted by the user"; so do `kill` and a closed terminal.

A terminal's Ctrl-C sends SIGINT to the whole process group: Playwright's
driver and Chromium die with the harness, and the error the story sees first
is often the browser's (``TargetClosedError``), not ``KeyboardInterrupt``. The
handler below notes the signal the moment it arrives, so the attempt's
verdict is decided by what happened, not by which error won the race.

Sync Playwright runs its event loop in a greenlet of the main thread, where
most of a story's time is spent. A ``KeyboardInterrupt`` raised there can
land halfway through handling one of the driver's messages: the message is
lost, and a later call (the screenshot or teardown after Ctrl-C) waits for it
for ever. So inside that greenlet the handler only asks the loop to raise the
interrupt in the story's greenlet at its next step, between two messages.
That step can come too late: when the answer the story waits for is already
queued on the loop, the story resumes first, and a story that then polls the
product's API or waits for a process would play on to its deadline. So the
interrupt is owed until raised, and the story is never resumed from a
Playwright call with one owed (``_resumed_only_if_nothing_owed``).

A process told to stop must stop, even where some other call still waits for
ever (once, a harness given Ctrl-C printed its verdict and then never
exited). From the first Ctrl-C, a watchdog that needs neither the interpreter
nor the main thread gives the process ``STUCK_AFTER_INTERRUPT_S`` to end,
then prints every thread's stack (where it was stuck) and ends it with exit
status 1. It is then as if it had been killed: what it had not written is
lost, and what it left running is removed by the next `harness run` or by
`harness clean`. A moment before, a thread of its own names each thread and
prints each suspended greenlet's stack: the watchdog's dump shows only the
greenlet a thread runs, and the story waits in another one while
Playwright's loop runs.

Sync Playwright's loop is not the only code a stop signal must not cut in
half: a thread pool starting a thread is another (``_kept_whole``).
"""

from __future__ import annotations

import asyncio
import faulthandler
import functools
import gc
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import FrameType
from typing import Any, TextIO

import greenlet

_received = threading.Event()
_first_signal: list[signal.Signals] = []
_owed: list[int] = []
"""A stop signal that arrived inside Playwright's loop or a section kept whole, and is not raised in the story yet
(a list, not a lock: the handler, the loop and the story all run in the main thread, and a handler must never wait
for a lock)."""
_whole_sections: list[Callable[..., Any]] = []
"""The sections the main thread is inside that a stop signal must not cut in half (``_kept_whole``)."""
STUCK_AFTER_INTERRUPT_S = 150.0
"""Longer than the slowest bounded teardown: a Paperclip start-up that is let finish (up to 90 s), then stopped
(up to 30 s before it is killed)."""
_stuck_stacks_to: TextIO | None = None
_stuck_reporter: list[threading.Thread] = []


def report_stuck_stacks_to(file: TextIO) -> None:
    """Where the watchdog prints a stuck process's stacks: stderr, unless this process's stderr goes nowhere."""
    global _stuck_stacks_to
    _stuck_stacks_to = file


def _stuck_stacks_file() -> TextIO:
    return _stuck_stacks_to or sys.stderr


def _report_where_each_waits_when_stuck() -> None:
    """Once told to stop, just before the watchdog fires: each thread by name, and each suspended greenlet's stack.

    The watchdog's own dump shows neither a thread's name nor a greenlet
    that is not running; a process stuck as it exits shows no stack at all
    for the threads it waits for.
    """
    _received.wait()
    time.sleep(STUCK_AFTER_INTERRUPT_S - min(5.0, STUCK_AFTER_INTERRUPT_S / 4))
    frames = sys._current_frames()
    lines = ["Stuck after being told to stop; threads:"]
    for thread in threading.enumerate():
        frame = frames.get(thread.ident or 0)
        where = traceback.format_stack(frame)[-1].strip().splitlines()[0] if frame else "(no Python frame)"
        lines.append(f"  {thread.name}{' (daemon)' if thread.daemon else ''}: {where}")
    for waiting in gc.get_objects():
        if isinstance(waiting, greenlet.greenlet) and waiting.gr_frame is not None:
            lines.append(f"Suspended greenlet {type(waiting).__name__} (most recent call last):")
            lines.append("".join(traceback.format_stack(waiting.gr_frame)).rstrip())
    file = _stuck_stacks_file()
    file.write("\n".join(lines) + "\n")
    file.flush()


def _on_stop_signal(signum: int, frame: FrameType | None) -> None:
    if not _received.is_set():
        _first_signal.append(signal.Signals(signum))
        faulthandler.dump_traceback_later(STUCK_AFTER_INTERRUPT_S, exit=True, file=_stuck_stacks_file())
    _received.set()
    current = greenlet.getcurrent()
    if current.parent is None:  # the story's own code: interrupt it here, or as the section kept whole ends
        if _whole_sections:
            _owed.append(signum)
            return
        _owed.clear()
        raise KeyboardInterrupt
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # a greenlet without a loop: nothing to corrupt
        _owed.clear()
        raise KeyboardInterrupt from None
    _owed.append(signum)
    loop.call_soon_threadsafe(_interrupt, _root(current))


def _root(current: greenlet.greenlet) -> greenlet.greenlet:
    while current.parent is not None:
        current = current.parent
    return current


def _owed_taken() -> bool:
    """Whether an interrupt was owed; whoever asks raises it, so it is owed no more."""
    owed = bool(_owed)
    _owed.clear()
    return owed


def _interrupt(story: greenlet.greenlet) -> None:
    """Raise Ctrl-C in the story's greenlet, which waits for a Playwright call to return; once per owed signal."""
    if not story.dead and _owed_taken():
        story.throw(KeyboardInterrupt)


def _kept_whole(section: Callable[..., Any]) -> Callable[..., Any]:
    """``section`` with a stop signal that arrives inside it raised only once it has returned.

    A thread pool starts a thread, then notes it (where exiting Python
    tells it to end). Ctrl-C between the two left a thread nobody would tell,
    and Python waited for it for ever as it exited: a cell worker told to
    stop hung on a screenshot's thumbnail thread (CI: the watchdog fired).
    """

    @functools.wraps(section)
    def whole(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is not threading.main_thread():  # where no signal handler runs
            return section(*args, **kwargs)
        _whole_sections.append(section)
        try:
            result = section(*args, **kwargs)
        finally:
            _whole_sections.pop()
        if not _whole_sections and greenlet.getcurrent().parent is None and _owed_taken():
            raise KeyboardInterrupt
        return result

    whole.__wrapped_by_interrupt__ = True  # type: ignore[attr-defined]
    return whole


def _resumed_only_if_nothing_owed(wait: Callable[..., None]) -> Callable[..., None]:
    """Playwright's one wait for a sync call's answer, raising an interrupt owed once the story resumes from it.

    Only in the story's own greenlet: a callback's greenlet (a route or
    event handler) returns to the loop, where the interrupt must not land.
    """

    @functools.wraps(wait)
    def waited(*args: Any, **kwargs: Any) -> None:
        wait(*args, **kwargs)
        if greenlet.getcurrent().parent is None and _owed_taken():
            raise KeyboardInterrupt

    waited.__wrapped_by_interrupt__ = True  # type: ignore[attr-defined]
    return waited


_PLAYWRIGHT_SYNC = "playwright._impl._sync_base"
"""Where sync Playwright waits for every call's answer (``wait_for_future``); calibration's own process, which
drives no browser, does not load it."""

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Ctrl-C, `kill` (and `timeout`, a CI job's cancel), a closed terminal: each asks the run to stop, so each ends
it as Ctrl-C does, product stopped and evidence kept. SIGTERM's default, ending at once, left the product's
controller (in a session of its own) running until the next `harness run`."""


def install() -> None:
    """Note every stop signal in this process (main thread only, as Python requires), then interrupt as Ctrl-C does."""
    sync_base = sys.modules.get(_PLAYWRIGHT_SYNC)  # a process that drives a browser imports Playwright first
    wait = getattr(sync_base, "wait_for_future", None)
    if wait is not None and not getattr(wait, "__wrapped_by_interrupt__", False):
        sync_base.wait_for_future = _resumed_only_if_nothing_owed(wait)  # type: ignore[union-attr]
    start_thread = ThreadPoolExecutor._adjust_thread_count  # type: ignore[attr-defined]
    if not getattr(start_thread, "__wrapped_by_interrupt__", False):
        ThreadPoolExecutor._adjust_thread_count = _kept_whole(start_thread)  # type: ignore[attr-defined,method-assign]
    if threading.current_thread() is threading.main_thread():
        # A parent may have blocked them (a Ray worker blocks SIGINT, and a cell worker it starts inherits the mask):
        # a blocked stop signal would wait unseen while the cell played on to its end.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        if not _stuck_reporter:  # started here: a signal handler must not start a thread (it may hold their lock)
            _stuck_reporter.append(threading.Thread(target=_report_where_each_waits_when_stuck, daemon=True))
            _stuck_reporter[0].start()
        for stop in STOP_SIGNALS:
            if stop is not signal.SIGHUP or signal.getsignal(stop) is not signal.SIG_IGN:  # `nohup` keeps it ignored
                signal.signal(stop, _on_stop_signal)


def interrupted() -> bool:
    return _received.is_set()


def stopped_by() -> str:
    """How the run was told to stop, in the words its verdict gives: "Ctrl-C", or the signal's name."""
    if not _first_signal or _first_signal[0] is signal.SIGINT:
        return "Ctrl-C"
    return _first_signal[0].name


def stopped_status() -> int:
    """The exit status of a run told to stop, as a shell reports a command a signal ended: 128 + its number
    (130 for Ctrl-C)."""
    return 128 + (_first_signal[0] if _first_signal else signal.SIGINT)
