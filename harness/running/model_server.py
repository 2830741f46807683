"""The model server a cell's live agents talk to, started by the harness when the profile needs one.

Replay profiles get the local model replay (one server per attempt, on
loopback, playing the ``story`` script); its URL goes to the product, whose
runners point their metering proxies at it. Live profiles use the real
provider (the product's proxies hold the key); the scripted agent needs none.
A replay cell whose agent CLI is not installed fails loudly here, naming
`make agents`: it must never turn into a skip.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from harness.core.catalog import Cell, Profile
from harness.core.verdicts import InfrastructureFailed

REPLAY_SCRIPT = "story"
PACED_SCRIPT = "story-paced"
MODEL_PATHS = ("/responses", "/messages", "/chat/completions")


@dataclass(frozen=True)
class ModelServer:
    """Where a cell's agents send model calls, and how many model calls the replay really answered.

    The count is the provider's side of the ledger: beside the product's
    metered (forwarded) calls it proves that nothing got past a hard stop.
    """

    upstream: str
    model_calls: Callable[[], int]


def agent_cli_versions(profile: Profile) -> dict[str, str]:
    """``{"codex": "@openai/codex@0.171.0"}`` for the profile's CLI (provenance); raises if it is missing."""
    if profile.agent_cli is None:
        return {}
    from agents.install import MissingCli, locate

    try:
        cli = locate(profile.agent_cli)
    except MissingCli as error:
        raise InfrastructureFailed(str(error)) from None
    return {cli.name: f"{cli.package}@{cli.version}"}


@contextmanager
def model_server(cell: Cell, override: str | None = None) -> Iterator[ModelServer | None]:
    """The replay server for a replay cell (stopped afterwards), else None.

    A case that gives the scripted agent a pace (a fault must land mid-work)
    gets the paced story script: the same steps with a pause after each file,
    longer by the environment's ``fault_window_scale`` (Paperclip's UI is slower).
    ``override`` (calibration's ``--replay-script``) plays a misbehaving script instead.
    """
    if cell.profile.model_server != "replay":
        yield None
        return
    from agents.loopback import LoopbackServer
    from replay.scripts import STORY_PACE_S
    from replay.server import create_app

    script = override or (PACED_SCRIPT if cell.case.scripted_pace_s else REPLAY_SCRIPT)
    # The paced script's pause after each file, as long as a person needs to act on this product's UI.
    app = create_app(script, pace_s=STORY_PACE_S * cell.environment.fault_window_scale)
    server = LoopbackServer(app).start()

    def model_calls() -> int:
        return sum(1 for call in app.state.calls.all() if call.path.endswith(MODEL_PATHS))

    try:
        yield ModelServer(upstream=f"{server.url}/scripts/{script}", model_calls=model_calls)
    finally:
        server.stop()
