"""httpx transports for addresses that never speak TLS: a loopback port or a Unix socket on this machine.

httpx builds a TLS context for every transport, loading the system's CA
bundle (a noticeable part of a fresh runner's start), even for a client that
only ever sends plain HTTP. A runner is a fresh process for every run and the harness opens a
client per product instance: a transport made here skips that load for a
plain ``http://`` address, and keeps httpx's verified default for any other.
"""

from __future__ import annotations

from typing import Any

import httpx


def plain_http_transport(
    url: str, kind: type[httpx.HTTPTransport] = httpx.HTTPTransport, **options: Any
) -> httpx.HTTPTransport:
    """``kind(**options)`` for ``url``; ``options`` are its keyword arguments (``uds``, ``retries``)."""
    if httpx.URL(url).scheme == "http":
        return kind(verify=False, **options)
    return kind(**options)
