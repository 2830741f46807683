"""The HTTP client every driver talks to its product with.

One transport rule for all products: a read that hits the server closing
its idle keep-alive connection just as the client reuses it is sent again
once. That race says nothing about the product; a second failure, or one
on a write, is reported as it is.

One error for all products: a running product that answers a story's
request with an error status raises :class:`ProductApiError`, which the
verdict rules count as the product's failure (``product.api-answered``),
never the machine's.
"""

from __future__ import annotations

import httpx


class ReadRetryTransport(httpx.HTTPTransport):
    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return super().handle_request(request)
        except httpx.RemoteProtocolError:
            if request.method != "GET":
                raise
            return super().handle_request(request)


class ProductApiError(RuntimeError):
    """The product answered a request of its public API with an error status (>= 400)."""

    def __init__(self, response: httpx.Response, limit: int = 500) -> None:
        self.status_code = response.status_code
        self.detail = response.text
        request = response.request
        super().__init__(f"{request.method} {request.url.path} -> {response.status_code}: {response.text[:limit]}")


def answered(response: httpx.Response) -> httpx.Response:
    """The response, or :class:`ProductApiError` when the product answered with an error status."""
    if response.status_code >= 400:
        raise ProductApiError(response)
    return response


def product_client(base_url: str, timeout: float) -> httpx.Client:
    return httpx.Client(base_url=base_url, timeout=timeout, transport=ReadRetryTransport())
