"""The HTTP client every driver talks to its product with.

One transport rule for all products: a read that hits the server closing
its idle keep-alive connection just as the client reuses it is sent again
once. That race says nothing about the product; a second failure, or one
on a write, is reported as it is.
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


def product_client(base_url: str, timeout: float) -> httpx.Client:
    return httpx.Client(base_url=base_url, timeout=timeout, transport=ReadRetryTransport())
