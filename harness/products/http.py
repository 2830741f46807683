"""The HTTP client every driver talks to its product with.

One transport rule for all products: a read that hits the server closing
its idle keep-alive connection just as the client reuses it is sent again
once. That race says nothing about the product; a second failure, or one
on a write, is reported as it is.

One error for all products: a running product that fails a story's request
(an error status, no answer in time, a refused or cut connection, a body that
is not JSON) raises :class:`ProductApiError`, which the verdict rules count as
the product's failure (``product.api-answered``), never the machine's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from harness.agents.plain_http import plain_http_transport


class ReadRetryTransport(httpx.HTTPTransport):
    """A transport that retries a GET once when the connection was cut before its answer."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return super().handle_request(request)
        except httpx.RemoteProtocolError:
            if request.method != "GET":
                raise
            return super().handle_request(request)


class ProductApiError(RuntimeError):
    """The running product failed a request of its public API: an error status (>= 400), no answer in time, a
    connection refused or cut, or a body that is not the JSON it must be."""

    def __init__(self, message: str, status_code: int | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.detail = detail

    @classmethod
    def of(cls, response: httpx.Response, limit: int = 500) -> ProductApiError:
        request = response.request
        message = f"{request.method} {request.url.path} -> {response.status_code}: {response.text[:limit]}"
        return cls(message, response.status_code, response.text)


def answered(response: httpx.Response) -> httpx.Response:
    """The response, or :class:`ProductApiError` when the product answered with an error status."""
    if response.status_code >= 400:
        raise ProductApiError.of(response)
    return response


Send = Callable[..., httpx.Response]

UNANSWERED = {
    httpx.TimeoutException: "no answer in time",
    httpx.ConnectError: "connection refused: the product is not listening",
    httpx.RemoteProtocolError: "the connection was closed without an answer",
}
"""How a running product can fail to answer at all, as its verdict says it (a raw ``httpx`` error read as the
machine's failure: a product that hung or died mid-story was called infrastructure)."""


def unanswered(error: httpx.TransportError) -> str:
    """Why a request got no answer, in the verdict's words, with the transport's own error kind."""
    why = next((text for kind, text in UNANSWERED.items() if isinstance(error, kind)), "no answer")
    return f"{why} ({type(error).__name__})"


def product_answer(send: Send, method: str, path: str, **kwargs: Any) -> httpx.Response:
    """The running product's answer to one request of its public API, with a success status.

    ``send`` is the driver's ``httpx.Client.request`` (or ``httpx.request``, for a full URL).
    """
    try:
        return answered(send(method, path, **kwargs))
    except tuple(UNANSWERED) as error:
        raise ProductApiError(f"{method} {httpx.URL(path).path} -> {unanswered(error)}") from error


def product_json(send: Send, method: str, path: str, **kwargs: Any) -> Any:
    """The product's JSON answer to one request of its public API; a body that is not JSON is the product's error."""
    response = product_answer(send, method, path, **kwargs)
    try:
        return response.json()
    except ValueError as error:
        raise ProductApiError(
            f"{method} {httpx.URL(path).path} -> {response.status_code}, but not JSON: {response.text[:200]!r}"
        ) from error


def product_client(base_url: str, timeout: float) -> httpx.Client:
    return httpx.Client(
        base_url=base_url, timeout=timeout, transport=plain_http_transport(base_url, ReadRetryTransport)
    )
