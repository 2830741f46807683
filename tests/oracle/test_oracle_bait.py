"""Controls for the escape cases: outside the sandbox the bait works, so inside it only the sandbox can stop them.

Without these, an escape case could "fail as expected" merely because its
bait was broken, and calibration would prove nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from calibration.deliveries import cases
from calibration.traps import host_traps

CONTROLLED = ["reads-host-file", "reaches-host-loopback", "writes-into-delivery", "memory-hog"]


@pytest.mark.parametrize("name", CONTROLLED)
def test_escape_delivery_is_correct_when_not_contained(tmp_path: Path, name: str) -> None:
    import io
    import zipfile

    case = next(c for c in cases() if c.name == name)
    with host_traps() as traps:
        with zipfile.ZipFile(io.BytesIO(case.build(traps))) as archive:
            archive.extractall(tmp_path)  # our own generated archive, not a delivery
        project = tmp_path / "slugify-tool"
        done = subprocess.run(
            [sys.executable, "slugify.py", "  Queue--Ready!!  "],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 0 and done.stdout == "queue-ready\n", (
        f"the bait of {name} does not work: {done.stdout!r} {done.stderr[-300:]}"
    )
