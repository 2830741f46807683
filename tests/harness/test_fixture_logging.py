"""An outside-service fixture runs inside the harness's own process and leaves its logging as it found it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

STARTS_A_FIXTURE = """
import logging, sys
from pathlib import Path
from harness.fixtures.documents import DocumentService
from harness.fixtures.gateway import ArcadeGateway
fixture = {"documents": DocumentService, "gateway": ArcadeGateway}[sys.argv[1]]
with fixture(Path(sys.argv[2]) / "capture.jsonl"):
    print(logging.getLogger().getEffectiveLevel())
"""


@pytest.mark.parametrize("fixture", ["documents", "gateway"])
def test_a_fixture_leaves_the_harness_at_warning_so_its_api_requests_are_not_logged(
    fixture: str, tmp_path: Path
) -> None:
    """At the MCP SDK's default level a fixture set the root logger to INFO, and a cell worker then wrote a line
    for every request its stories made. A process of its own: pytest's log capture would hide the change."""
    done = subprocess.run(
        [sys.executable, "-c", STARTS_A_FIXTURE, fixture, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "30", done.stdout  # logging.WARNING
