"""The model server a cell's live agents talk to, started by the harness when the profile needs one.

Replay profiles get the local model replay (one server per attempt, on
loopback, playing the ``story`` script); its URL goes to the product, whose
runners point their metering proxies at it. Live profiles use the real
provider (the product's proxies hold the key); the scripted agent needs none.
A replay cell whose agent CLI is not installed fails loudly here, naming
`make agents`: it must never turn into a skip. A cassette records what the
model side answered, or stands in for it (:mod:`harness.cassettes`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from harness.agents.metering.providers import BASE_URL_VARIABLE, Provider
from harness.agents.registry import AgentCli, registered
from harness.cassettes.model import load_cassette
from harness.cassettes.normalise import Normaliser
from harness.cassettes.session import DIVERGENCE_FILE, Recording, Replaying
from harness.core import registry
from harness.core.catalog import Cell, Profile
from harness.core.settings import RunSettings
from harness.core.story_inputs import DrawnInput
from harness.core.verdicts import CassetteDiverged, InfrastructureFailed
from harness.evidence.secret_scan import secrets_from_environment
from harness.products import product_driver
from harness.running.attempt import AttemptContext

REPLAY_SCRIPT = "story"
PACED_SCRIPT = "story-paced"
MODEL_PATHS = ("/responses", "/messages", "/chat/completions")


@dataclass(frozen=True)
class ModelServer:
    """Where a cell's agents send model calls, and how many model calls the model side really answered.

    The count is the provider's side of the ledger: beside the product's
    metered (forwarded) calls it proves that nothing got past a hard stop.
    ``upstream`` is None when the product's runners find the model themselves
    (a live cell being recorded).
    """

    upstream: str | None
    model_calls: Callable[[], int]
    recording: Recording | None = None
    replaying: Replaying | None = None


def agent_cli_versions(profile: Profile) -> dict[str, str]:
    """``{"codex": "@openai/codex@0.171.0"}`` for the profile's CLI (provenance); raises if it is missing."""
    if profile.agent_cli is None:
        return {}
    from harness.agents.install import MissingCli, locate

    try:
        cli = locate(profile.agent_cli)
    except MissingCli as error:
        raise InfrastructureFailed(str(error)) from None
    return {cli.name: f"{cli.package}@{cli.version}"}


@contextmanager
def model_server(cell: Cell, settings: RunSettings) -> Iterator[ModelServer | None]:
    """What the cell's agents talk to, for the attempt (stopped afterwards); None when the harness serves nothing.

    A replay cell gets the model replay: a case that gives the scripted agent
    a pace (a fault must land mid-work) gets the paced story script, the same
    steps with a pause after each file, longer by the environment's
    ``fault_window_scale`` (Paperclip's UI is slower); ``--replay-script``
    (calibration) plays a misbehaving script instead. ``--record`` puts the
    recording tap in front of the model (the replay, or for a live cell the
    provider the operator names); ``--cassette`` puts the cassette player in
    its place, and no model is reached at all.
    """
    if settings.cassette is not None:
        with replaying(cell, settings.cassette) as server:
            yield server
        return
    if cell.profile.model_server != "replay":
        if settings.record and cell.profile.live:
            with recording_live(cell) as server:
                yield server
        else:
            yield None
        return
    with replay_server(cell, settings.replay_script) as upstream:
        if not settings.record:
            yield ModelServer(upstream=upstream.url, model_calls=upstream.model_calls)
            return
        recording = Recording(upstream.url)
        try:
            yield ModelServer(upstream=recording.url, model_calls=upstream.model_calls, recording=recording)
        finally:
            recording.stop()


@dataclass(frozen=True)
class _Upstream:
    url: str
    model_calls: Callable[[], int]


@contextmanager
def replay_server(cell: Cell, override: str | None) -> Iterator[_Upstream]:
    from harness.agents.loopback import LoopbackServer
    from harness.replay.scripts import STORY_PACE_S
    from harness.replay.server import create_app

    script = override or (PACED_SCRIPT if cell.case.scripted_pace_s else REPLAY_SCRIPT)
    # The paced script's pause after each file, as long as a person needs to act on this product's UI.
    app = create_app(script, pace_s=STORY_PACE_S * cell.environment.fault_window_scale)
    server = LoopbackServer(app).start()

    def model_calls() -> int:
        return sum(1 for call in app.state.calls.all() if call.path.endswith(MODEL_PATHS))

    try:
        yield _Upstream(url=f"{server.url}/scripts/{script}", model_calls=model_calls)
    finally:
        server.stop()


@contextmanager
def recording_live(cell: Cell) -> Iterator[ModelServer]:
    """The tap in front of the operator's provider: the runners' proxies find it where they look for the provider.

    The proxies still hold the key and send it; the tap forwards it and never
    records a header. The product gets no model upstream, so its spend stays real.
    """
    variable = BASE_URL_VARIABLE[_provider(cell)]
    provider = os.environ.get(variable)
    if not provider:
        raise InfrastructureFailed(f"recording a live cell needs {variable}: the provider's API the tap forwards to")
    recording = Recording(provider)
    os.environ[variable] = recording.url
    try:
        yield ModelServer(upstream=None, model_calls=recording.model_calls, recording=recording)
    finally:
        os.environ[variable] = provider
        recording.stop()


@contextmanager
def replaying(cell: Cell, where: Path) -> Iterator[ModelServer]:
    cassette = load_cassette(where)
    player = Replaying(cassette, Normaliser(volatile_rules(cell)))
    try:
        yield ModelServer(upstream=player.url, model_calls=player.model_calls, replaying=player)
    finally:
        player.stop()


def volatile_rules(cell: Cell) -> tuple[str, ...]:
    """What varies between runs of the cell: its product's made-up values and its agent CLI's own."""
    cli = _agent_cli(cell)
    return (*registry.product(cell.environment.product).volatile, *(cli.volatile if cli else ()))


def _provider(cell: Cell) -> Provider:
    if (cli := _agent_cli(cell)) is None:
        raise InfrastructureFailed(f"profile {cell.profile.name} names no agent CLI to record")
    return cli.provider


def _agent_cli(cell: Cell) -> AgentCli | None:
    return registered().get(cell.profile.agent_cli or "")


def end_cassette(context: AttemptContext, server: ModelServer, drawn: list[DrawnInput], clis: dict[str, str]) -> None:
    """A recording is kept in the package; a replay that left its cassette ends the attempt ``unexercised``.

    The cassette is written once the product has stopped, so every secret it
    issued is known and redacted.
    """
    recorder = context.recorder
    if server.recording is not None:
        driver = product_driver(context.cell.environment.product)
        secrets = {**secrets_from_environment(), **recorder.known_secrets}
        path = server.recording.keep(recorder.folder, context.cell, clis, drawn, secrets, driver.secret_patterns)
        recorder.note("cassette", f"{server.recording.model_calls()} model exchange(s) recorded in {path.name}")
    if server.replaying is not None:
        recorder.note("cost", "recorded: what the cassette's calls cost when they were made; nothing was spent")
        if (divergence := server.replaying.divergence(recorder.folder)) is not None:
            raise CassetteDiverged(f"{divergence.headline()}; the diff is in {DIVERGENCE_FILE}")
