"""The model server a cell's live agents talk to, started by the harness when the profile needs one.

Replay profiles get the local model replay (one server per attempt, on
loopback, playing the ``story`` script); its URL goes to the product, whose
runners point their metering proxies at it. Live profiles use the real
provider (the product's proxies hold the key); the scripted agent needs none.
A replay cell whose agent CLI is not installed fails loudly here, naming
`make agents`: it must never turn into a skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from harness.core.catalog import Cell, Profile
from harness.core.verdicts import InfrastructureFailed

REPLAY_SCRIPT = "story"
PACED_SCRIPT = "story-paced"


def agent_cli_versions(profile: Profile) -> dict[str, str]:
    """``{"codex": "@openai/codex@0.171.0"}`` for the profile's CLI (provenance); raises if it is missing."""
    if profile.agent_cli is None:
        return {}
    from testbed.adapters.agent_clis import MissingCli, locate

    try:
        cli = locate(profile.agent_cli)  # type: ignore[arg-type]
    except MissingCli as error:
        raise InfrastructureFailed(str(error)) from None
    return {cli.name: f"{cli.package}@{cli.version}"}


@contextmanager
def model_server(cell: Cell, override: str | None = None) -> Iterator[str | None]:
    """The replay server's URL for a replay cell (stopped afterwards), else None.

    A case that gives the scripted agent a pace (a fault must land mid-work)
    gets the paced story script: the same steps with a pause after each file.
    ``override`` (calibration's ``--replay-script``) plays a misbehaving script instead.
    """
    if cell.profile.model_server != "replay":
        yield None
        return
    from replay.server import create_app
    from testbed.loopback import LoopbackServer

    script = override or (PACED_SCRIPT if cell.case.scripted_pace_s else REPLAY_SCRIPT)
    server = LoopbackServer(create_app(script)).start()
    try:
        yield f"{server.url}/scripts/{script}"
    finally:
        server.stop()
