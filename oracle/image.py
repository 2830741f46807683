"""Which image grades, and how a machine without a registry gets one.

Resolution never pulls: a grade uses only what is already on the engine, so
a grade cannot silently change what it runs in or hang on a registry. And it
uses only an image that verifies (oracle.pinned): the pinned digest pulled,
or the pinned root built here, checked from the same inspect document the
lookup reads, so verifying costs a grade nothing. `python -m oracle image`
is the one place allowed to fetch or build; building lives in oracle.build,
imported there alone.
"""

from __future__ import annotations

import os
import sys

from oracle.engine import Engine, EngineError, Image, NotFound, UnsupportedHost, connect
from oracle.pinned import PINNED_IMAGE, pinned_root, problem

IMAGE_ENV = "EVERYDAY_ORACLE_IMAGE"
API_VERSION = "1.41"
"""The engine API version spoken (Docker 20.10's): every call the oracle makes exists in it."""
API_VERSION_ENV = "DOCKER_API_VERSION"  # the docker command line's own override, honoured here too
BAD_REQUEST = 400  # what an engine answers a version it does not speak
ENGINE_TIMEOUT_S = 60
LOCAL_TAG = "everyday-evals-oracle:local"
BUILD_HINT = "run `make oracle-image` (or `python -m oracle image`)"


class CannotGrade(Exception):
    """The oracle could not grade at all (no engine, no image): not the delivery's fault."""


class Unverified(CannotGrade):
    """The image is on the engine but is neither the pinned digest nor the pinned root (oracle.pinned)."""


def engine() -> Engine:
    """A client whose engine answers, or CannotGrade naming the fix.

    The client speaks API_VERSION (or $DOCKER_API_VERSION), which engines
    from Docker 20.10 on accept until they drop it, and proves the engine
    answers with one ping. Why not ask the engine first: a `/version`
    request, which the engine answers by running `runc --version` and
    `docker-init --version`, costs 7 to 50 ms of every grade, by load,
    and CPU the container start needs. Only an engine that refuses the
    pinned version (older than 20.10, or one that dropped it) is asked for
    its own ("auto" asks at once). DOCKER_HOST (and DOCKER_TLS_VERIFY,
    DOCKER_CERT_PATH) choose the engine, which may be another machine:
    nothing a grade sends depends on sharing this one's disk.
    """
    client = _unproven()
    _prove(client)
    return client


def engine_and_image(reference: str | None = None) -> tuple[Engine, Image]:
    """engine() and resolve(client, reference) with one engine round trip fewer: the image's lookup is the first request.

    An answer to it (found or not) proves the engine answers in the pinned
    version as the ping would have; only a refusal or no answer at all is
    looked into the way engine() looks (so the same CannotGrade names the
    fix). The command line asks for its container right after this: the
    ping was a round trip of every grade's start.
    """
    client = _unproven()
    return client, resolve(client, reference, proven=False)


def _unproven() -> Engine:
    """A client of the engine the environment names, in the pinned API version; nothing asked of it yet."""
    try:
        return connect(os.environ, os.environ.get(API_VERSION_ENV) or API_VERSION, ENGINE_TIMEOUT_S)
    except UnsupportedHost as error:
        raise CannotGrade(str(error)) from None


def _prove(client: Engine) -> None:
    """Ping the engine in the client's version; ask for the engine's own version if that one is refused (or "auto")."""
    try:
        if client.api_version == "auto" or not _speaks_pinned(client):
            client.api_version = str(client.version()["ApiVersion"])  # it says which version it speaks
    except (EngineError, KeyError) as error:
        raise CannotGrade(
            f"no Docker engine answers ({str(error).splitlines()[0][:120]}): run `make engine` or start Docker"
        ) from None


def _speaks_pinned(client: Engine) -> bool:
    """One ping in the client's version: True when it answers, False when it refuses that version (400)."""
    try:
        client.ping()
    except EngineError as error:
        if error.status != BAD_REQUEST:
            raise
        return False
    return True


def candidates() -> list[str]:
    """Image references in order of preference."""
    chosen = os.environ.get(IMAGE_ENV)
    return [chosen] if chosen else [LOCAL_TAG, PINNED_IMAGE]


def resolve(client: Engine, reference: str | None = None, *, proven: bool = True) -> Image:
    """The image a grade runs in, present on the engine already and verified (oracle.pinned), or CannotGrade.

    The default candidates are tried in order, so an unverified local tag
    gives way to the pulled pinned image; an image the caller named must
    verify itself. `proven` False: the client was never asked anything
    (engine_and_image), so a refused or unanswered lookup first proves the
    engine as engine() does, then looks again.
    """
    if client.api_version == "auto" and not proven:
        _prove(client)
        proven = True
    pinned = pinned_root()
    refused: list[str] = []
    for ref in [reference] if reference else candidates():
        try:
            inspected = client.inspect_image(ref)
        except NotFound:
            proven = True  # the engine answered
            continue
        except EngineError as error:  # e.g. an invalid reference format, or the engine went away
            if not proven:
                _prove(client)
                return resolve(client, reference)
            raise CannotGrade(f"oracle image {ref!r} cannot be looked up: {error.explanation}"[:240]) from None
        proven = True
        why = problem(inspected, pinned)
        if why is None:
            return Image(id=inspected["Id"], tags=list(inspected.get("RepoTags") or []))
        refused.append(f"oracle image {ref!r} does not verify: {why}")
    if refused:
        raise Unverified(f"{refused[0]}; {BUILD_HINT}")
    wanted = reference or os.environ.get(IMAGE_ENV)
    if wanted:
        raise CannotGrade(
            f"oracle image {wanted!r} is not on the engine: build it or unset {IMAGE_ENV}, then {BUILD_HINT}"
        )
    raise CannotGrade(f"no oracle image on the engine: {BUILD_HINT}")


def say(line: str) -> None:
    """One progress line of `python -m oracle image`, on stderr."""
    print(f"oracle image: {line}", file=sys.stderr, flush=True)
