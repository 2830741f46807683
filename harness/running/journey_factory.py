"""The journey factory: each attempt gets its own product instance, model server, browser context and trace.

Bound once to the session's browser (:func:`journey_factory`), it opens the
world an attempt's story acts in and closes it whatever the story did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from harness.core.story_inputs import drawing
from harness.products import product_driver
from harness.running.attempt import AttemptContext
from harness.running.journey import Journey
from harness.running.model_server import ModelServer, agent_cli_versions, end_cassette, model_server
from harness.running.shared_browser import SharedBrowser
from harness.running.world import close_world, open_world


def journey_factory(browser: Any) -> Callable[[AttemptContext], Any]:
    """Bind the session's browser; each attempt gets its own instance, context and trace.

    A bare Playwright browser is wrapped here; pass a :class:`SharedBrowser`
    to keep the browser it relaunched for the next attempts.
    """
    shared = browser if isinstance(browser, SharedBrowser) else SharedBrowser(browser)

    @contextmanager
    def open_journey(context: AttemptContext) -> Iterator[Journey]:
        with model_server(context.cell, context.settings) as server:
            replayed = server.replaying.cassette.inputs if server and server.replaying else None
            with drawing(list(replayed) if replayed else None) as drawn:
                with _journey(context, server) as journey:
                    yield journey
            if server is not None:
                end_cassette(context, server, drawn, journey.agent_clis)

    @contextmanager
    def _journey(context: AttemptContext, server: ModelServer | None) -> Iterator[Journey]:
        driver = product_driver(context.cell.environment.product)
        recorder = context.recorder
        clis = agent_cli_versions(context.cell.profile)
        instance, browser_context, page = open_world(shared, context, driver, server)
        recorder.note("product started", f"{driver.name} at {instance.base_url}, data folder {instance.data_dir}")
        if server and server.replaying:
            recorder.note("cassette", f"the model answers from a cassette of {server.replaying.cassette.cell}")
        elif server and server.upstream:
            recorder.note("model replay", f"{server.upstream} ({', '.join(clis.values())})")
        journey: Journey | None = None
        try:
            with recorder.timed("journey setup"):
                journey = Journey(context, driver, instance, browser_context, page)
                journey.agent_clis = clis
                journey.model_server = server
            yield journey
        finally:
            if journey is not None:
                journey.close()  # concluding closed it already, unless the attempt ended before
            else:
                close_world(recorder, driver, instance, browser_context)

    return open_journey
