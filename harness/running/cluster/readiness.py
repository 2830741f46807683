"""A node is ready to take cells, or it says what is missing.

Run on the node itself (inside a Ray task pinned to it) before it is given
any cell: the same harness (its digest equals the driver's, so both grade
alike), a Docker engine that answers, the oracle's image on it (a grade
never pulls), a browser, and every agent CLI the campaign's cells run.
`python -m harness.running.cluster.readiness` checks this machine the same
way (`make cluster-node` ends with it).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from pydantic import BaseModel

from harness.core.catalog import Cell
from harness.core.cli_probe import installed_agent_cli
from harness.evidence.provenance import harness_digest
from harness.running.browser import launch_options


class Needs(BaseModel):
    """What the campaign's cells need of every node that plays them."""

    harness_digest: str
    agent_clis: tuple[str, ...] = ()


def needs_of(cells: Iterable[Cell]) -> Needs:
    """The driver's digest and the agent CLIs of the cells' profiles."""
    clis = sorted({cell.profile.agent_cli for cell in cells if cell.profile.agent_cli})
    return Needs(harness_digest=harness_digest(), agent_clis=tuple(clis))


class Readiness(BaseModel):
    """One node's answer: empty ``missing`` means ready."""

    node: str
    missing: list[str] = []

    @property
    def ready(self) -> bool:
        return not self.missing


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def missing_here(needs: Needs) -> list[str]:
    """What this machine lacks to play the cells, one phrase each (with the fix where one is known)."""
    from oracle import image
    from oracle.image import CannotGrade

    missing = []
    mine = harness_digest()
    if mine != needs.harness_digest:
        missing.append(
            f"the harness differs from the driver's (digest {mine[:12]}, driver {needs.harness_digest[:12]}):"
            " install the same revision"
        )
    try:
        image.resolve(image.engine(), None)
    except CannotGrade as error:
        missing.append(f"the oracle cannot grade: {_first_line(error)}")
    try:
        launch_options()
    except RuntimeError as error:
        missing.append(f"no browser: {_first_line(error)}")
    missing += [
        f"agent CLI {name} is not installed: run `make agents`"
        for name in needs.agent_clis
        if not installed_agent_cli(name)
    ]
    return missing


def main(argv: list[str]) -> int:
    """Print this machine's readiness for every registered agent CLI; exit 1 when something is missing."""
    from harness.agents.registry import registered

    missing = missing_here(Needs(harness_digest=harness_digest(), agent_clis=tuple(registered())))
    for line in missing:
        print(f"missing: {line}", file=sys.stderr)
    if not missing:
        print(f"ready: harness {harness_digest()[:12]}, Docker engine and oracle image, browser, every agent CLI")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
