"""Every way a running product can fail a request of its API is the product's error, named, never the machine's."""

from __future__ import annotations

import httpx
import pytest

from harness.products.http import ProductApiError, product_answer, product_json


def client(handler: httpx.MockTransport) -> httpx.Client:
    return httpx.Client(base_url="http://127.0.0.1:9", transport=handler)


def raising(error: type[httpx.TransportError]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        raise error("boom", request=request)

    return httpx.MockTransport(handle)


@pytest.mark.parametrize(
    ("error", "says"),
    [
        (httpx.ReadTimeout, "GET /api/tasks/1 -> no answer in time (ReadTimeout)"),
        (httpx.ConnectError, "GET /api/tasks/1 -> connection refused: the product is not listening (ConnectError)"),
        (httpx.RemoteProtocolError, "GET /api/tasks/1 -> the connection was closed without an answer"),
    ],
)
def test_no_answer_is_the_products_error(error: type[httpx.TransportError], says: str) -> None:
    with pytest.raises(ProductApiError, match="^" + says.replace("(", r"\(").replace(")", r"\)")):
        product_answer(client(raising(error)).request, "GET", "/api/tasks/1")


def test_a_body_that_is_not_json_is_the_products_error() -> None:
    html = httpx.MockTransport(lambda request: httpx.Response(200, text="<html>oops</html>"))
    with pytest.raises(ProductApiError) as raised:
        product_json(client(html).request, "GET", "/api/tasks/1")
    assert str(raised.value) == "GET /api/tasks/1 -> 200, but not JSON: '<html>oops</html>'"


def test_an_error_status_keeps_its_code_and_body() -> None:
    refused = httpx.MockTransport(lambda request: httpx.Response(404, text="no such task"))
    with pytest.raises(ProductApiError) as raised:
        product_json(client(refused).request, "GET", "/api/tasks/1")
    assert (raised.value.status_code, raised.value.detail) == (404, "no such task")


def test_a_full_url_names_only_its_path() -> None:
    with pytest.raises(ProductApiError, match=r"^GET /api/issues/PAP-1 -> no answer in time"):
        product_answer(client(raising(httpx.ReadTimeout)).request, "GET", "http://127.0.0.1:9/api/issues/PAP-1")
