"""Cross-site request checks: a page on another site must not act through a user's browser.

A form on any web site can POST to this product through the user's browser
(it has no login to stop it). Browsers name the page a request comes from in
``Origin`` (or at least ``Referer``); both must be this product's own origin.
The web forms demand one of them; the JSON API, which programs call without
either header, refuses only a browser request from elsewhere.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import HTTPException, Request

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.headers.get('host', '')}".lower()


def _claimed_origin(request: Request) -> str | None:
    """The origin the browser says the request comes from: ``Origin``, else the ``Referer``'s."""
    origin = request.headers.get("origin")
    if origin is not None:
        return origin.lower()
    referer = request.headers.get("referer")
    if referer:
        parts = urlsplit(referer)
        return f"{parts.scheme}://{parts.netloc}".lower()
    return None


def _check(request: Request, required: bool) -> None:
    if request.method in SAFE_METHODS:
        return
    claimed = _claimed_origin(request)
    if claimed is None and not required:
        return
    if claimed != _own_origin(request):
        raise HTTPException(
            status_code=403,
            detail=f"cross-site request refused: origin {claimed or '(none)'} is not {_own_origin(request)}",
        )


def same_origin_if_browser(request: Request) -> None:
    """JSON API: a request that names another origin is refused; one naming none (a program) passes."""
    _check(request, required=False)


def same_origin_required(request: Request) -> None:
    """Web forms: the request must name this product's own origin (``Origin`` or ``Referer``)."""
    _check(request, required=True)
