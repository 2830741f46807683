"""An API call that got no answer is on the timeline: real loopback servers that cut the connection, never answer,
or are not listening, reached through the client every driver uses and the log the journey attaches to it."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from html import unescape
from pathlib import Path

import httpx
import pytest

from harness.core.records import AttemptRecord
from harness.evidence.moments import API_CALLS, JsonLines, watch_client
from harness.products.http import ProductApiError, product_answer, product_client
from harness.results.report.fixtures import write_attempt
from harness.results.report.timeline import build_timeline
from harness.results.report.timeline_html import rows_html
from harness.results.report.timeline_lanes import Lane, api_calls

TIMEOUT_S = 0.3


@contextmanager
def loopback_server(behaviour: str) -> Iterator[str]:
    """A real TCP server on loopback that reads one request, then cuts the connection (``cut``), holds it open
    without a word until the test ends (``silent``), or answers 200 (``answer``)."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        listener.settimeout(0.05)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            read_request(connection)
            if behaviour == "cut":
                connection.close()
            elif behaviour == "silent":
                held.append(connection)
            else:
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
                connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for connection in held:
            connection.close()
        listener.close()


def read_request(connection: socket.socket) -> None:
    """Read one whole request, head and body: a server that closes with bytes unread makes the kernel reset the
    connection, and the client sees a reset instead of a connection closed without an answer."""
    with connection.makefile("rb") as stream:
        length = 0
        while (line := stream.readline().lower()) not in (b"\r\n", b""):
            if line.startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        stream.read(length)


def a_closed_port() -> str:
    """An address nothing listens on: a port the system gave out and that was closed again at once."""
    with socket.create_server(("127.0.0.1", 0)) as bound:
        port = bound.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def logged_calls(package: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (package / API_CALLS).read_text().splitlines()]


@pytest.mark.parametrize(
    ("behaviour", "method", "why"),
    [
        ("cut", "POST", "the connection was closed without an answer (RemoteProtocolError)"),
        ("silent", "GET", "no answer in time (ReadTimeout)"),
        ("refused", "GET", "connection refused: the product is not listening (ConnectError)"),
    ],
)
def test_a_call_without_an_answer_is_logged_with_its_error_and_wait_and_is_a_problem_on_the_timeline(
    tmp_path: Path, behaviour: str, method: str, why: str
) -> None:
    with loopback_server(behaviour) as url:
        client = product_client(a_closed_port() if behaviour == "refused" else url, TIMEOUT_S)
        watch_client(client, JsonLines(tmp_path / API_CALLS))
        with pytest.raises(ProductApiError, match=r"\(\w+(Error|Timeout)\)"):
            product_answer(client.request, method, "/api/tasks/7")
        client.close()

    [call] = logged_calls(tmp_path)
    assert (call["method"], call["path"], call.get("status")) == (method, "/api/tasks/7", None)
    assert str(call["error"]).startswith(why)
    if behaviour == "silent":
        assert float(str(call["seconds"])) >= TIMEOUT_S  # how long the harness waited for the answer that never came

    [event] = api_calls(tmp_path)
    assert event.lane is Lane.API and event.problem and event.seconds == call["seconds"]
    assert event.title == f"{method} /api/tasks/7 → no answer" and event.detail.startswith(why)


def test_on_the_timeline_the_unanswered_call_is_the_api_lane_s_problem_with_its_error_and_wait(tmp_path: Path) -> None:
    package = write_attempt(tmp_path / "results")
    log = JsonLines(package / API_CALLS)
    with loopback_server("answer") as answering, loopback_server("cut") as cutting:
        good, bad = product_client(answering, TIMEOUT_S), product_client(cutting, TIMEOUT_S)
        for client in (good, bad):
            watch_client(client, log)
        assert good.get("/api/tasks").status_code == 200
        with pytest.raises(httpx.RemoteProtocolError):
            bad.post("/api/tasks/1/messages", json={"body": "hi"})
        good.close()
        bad.close()

    assert [(c["path"], c.get("status")) for c in logged_calls(package)] == [
        ("/api/tasks", 200),
        ("/api/tasks/1/messages", None),
    ]
    timeline = build_timeline(package, AttemptRecord.model_validate_json((package / "attempt.json").read_text()))
    api = next(lane for lane in timeline.lane_counts() if lane["lane"] == "api")
    assert (api["events"], api["problems"]) == (2, 1)  # what the "problems only" filter counts and shows
    [row] = [row for row in timeline.rows if row.event.lane is Lane.API and row.event.problem]
    html = str(rows_html(timeline))
    shown = unescape(html[html.index(f'id="ev-{row.n}"') :].split("</li>")[0])  # the text a browser shows
    assert "problem" in shown.split(">")[0] and "POST /api/tasks/1/messages → no answer" in shown
    assert "closed without an answer" in shown and f"{row.event.seconds:.3f} s" in shown
