"""The attempt's world: the product and the browser context, opened together and closed together.

Opening and closing are most of the harness's own time in a short attempt,
and each is two independent halves: the product starts (half a second of its
imports) while the browser opens the context and page, and the product stops
and its leftovers are kept (its logs, its workspaces scanned) while the
browser writes the trace. Whichever half
fails, the other is still closed: nothing an attempt started outlives it.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from harness.core.verdicts import InfrastructureFailed
from harness.evidence.recorder import EvidenceRecorder
from harness.evidence.secret_scan import secrets_from_environment
from harness.evidence.trace_network import merge_network
from harness.products.base import ProductDriver, ProductInstance
from harness.running.attempt import AttemptContext
from harness.running.model_server import ModelServer
from harness.running.shared_browser import SharedBrowser

SCRIPTED_PACE_S = 0.05
TRACE = "trace.zip"
NETWORK_HAR = "network.har"
"""The context's network log (no bodies) until close_world writes it into the trace (harness.evidence.trace_network)."""


def open_world(
    browser: SharedBrowser, context: AttemptContext, driver: ProductDriver, server: ModelServer | None
) -> tuple[ProductInstance, Any, Any]:
    """The started product, and the attempt's browser context (traced) and page.

    The product starts (half a second of its imports) while the browser opens
    the context and the page. Whichever fails, the other is closed: a product
    that did not start is the machine's failure, never the agent's.
    """
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="product-start") as starter:
        starting = starter.submit(_start_product, context, driver, server)
        try:
            with context.recorder.timed("browser"):
                browser_context = browser.new_context(
                    context.recorder,
                    accept_downloads=True,
                    viewport={"width": 1280, "height": 900},
                    record_har_path=context.recorder.folder / NETWORK_HAR,
                    record_har_content="omit",
                )
                # Actions and console, no DOM snapshots and no screencast: the journey keeps its own step
                # screenshots, the network comes from the context's log (harness.evidence.trace_network), and
                # what each would cost a cell is in docs/measurements.md.
                browser_context.tracing.start(screenshots=False, snapshots=False)
                page = browser_context.new_page()
        except BaseException:
            _close_started(starting)
            raise
        try:
            return starting.result(), browser_context, page
        except BaseException as error:
            try:
                browser_context.close()  # nothing happened in it yet: no trace to keep
                (context.recorder.folder / NETWORK_HAR).unlink(missing_ok=True)
            finally:
                _close_started(starting)  # a Ctrl-C while it started: it is closed once it has
            if isinstance(error, Exception):
                raise InfrastructureFailed(f"the product did not start: {error}") from error
            raise


def _start_product(context: AttemptContext, driver: ProductDriver, server: ModelServer | None) -> ProductInstance:
    """A runner sandbox other than a local process is asked for only where the cell's environment wants one."""
    sandbox = context.cell.environment.sandbox
    with context.recorder.timed("product start"):
        return driver.start_instance(
            pace_for(context),
            defects=context.settings.product_defects,
            model_upstream=server.upstream if server else None,
            agent_time_limit_s=context.settings.agent_time_limit_s,
            **({"sandbox": sandbox} if sandbox != "process" else {}),
        )


def _close_started(starting: Future[ProductInstance]) -> None:
    """A product the attempt no longer wants (the browser failed, or Ctrl-C): closed once its start ends.

    A start that failed left nothing running; its error says less than the one the attempt is already ending with.
    """
    try:
        instance = starting.result()
    except BaseException:  # noqa: BLE001  the error being raised already says why the attempt ends
        return
    instance.close()


def pace_for(context: AttemptContext) -> float:
    """The scripted agent's step time: the command line wins, else the case's window, else fast.

    A fault story needs the agent slow enough for a person to act between
    its steps (the case says how slow, the environment how much slower its
    product's UI makes that person); everything else runs fast.
    """
    if context.settings.pace_s is not None:
        return context.settings.pace_s
    window = context.cell.case.scripted_pace_s
    return window * context.cell.environment.fault_window_scale if window else SCRIPTED_PACE_S


def close_world(
    recorder: EvidenceRecorder, driver: ProductDriver, instance: ProductInstance, browser_context: Any
) -> None:
    """Keep the trace while the product stops, its logs are kept and its workspaces scanned.

    The two do not depend on each other: the trace is the browser's, and the
    product's end is its controller's shutdown and then files on disk. The
    pages close first, so no live refresh meets the stopping product and the
    trace ends where the story did. Whatever fails, the product is stopped
    and closed before this returns.
    """
    stopping: Future[None] | None = None
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="product-stop") as stopper:
        try:
            with recorder.timed("trace"):
                for page in browser_context.pages:
                    page.close()
                stopping = stopper.submit(_stop_product, recorder, driver, instance)
                browser_context.tracing.stop(path=recorder.folder / TRACE)
                browser_context.close()  # writes the network log
                merge_network(recorder.folder / TRACE, recorder.folder / NETWORK_HAR)
        finally:
            if stopping is None:  # the browser failed before the product could be stopped beside it
                _stop_product(recorder, driver, instance)
            else:
                stopping.result()


def _stop_product(recorder: EvidenceRecorder, driver: ProductDriver, instance: ProductInstance) -> None:
    """Stop the controller, then keep what it left (whether or not it stopped as asked)."""
    try:
        with recorder.timed("product stop"):
            instance.stop_controller()
    finally:
        _keep_product_leftovers(recorder, driver, instance)


def _keep_product_leftovers(recorder: EvidenceRecorder, driver: ProductDriver, instance: ProductInstance) -> None:
    """The stopped product's logs into the package, its secrets known to the scan, its workspaces scanned; then gone."""
    with recorder.timed("product stop"):
        try:
            for log in instance.log_paths():
                recorder.keep_file(log, f"logs/{log.name}")
            for label, value in instance.issued_secrets().items():
                recorder.add_known_secret(label, value)
            recorder.scan_workspaces(
                instance.agent_workspaces,
                {**secrets_from_environment(), **recorder.known_secrets},
                driver.secret_patterns,
            )
        finally:
            instance.close()
