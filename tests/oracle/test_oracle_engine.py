"""How a grade reaches the engine: a pinned API version (no `/version` request), and the container asked for before pydantic is imported.

Both are start-up costs of every `python -m oracle grade` (see `python -m bench.oracle`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import docker
import pytest

from oracle import image


def test_the_pinned_version_is_spoken_without_asking_the_engine(client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(image.API_VERSION_ENV, "1.40")  # older than the engine's own, which asking would have given
    assert image.engine().api_version == "1.40"
    monkeypatch.delenv(image.API_VERSION_ENV)
    assert image.engine().api_version == image.API_VERSION


def test_an_engine_that_refuses_the_pinned_version_is_asked_for_its_own(
    witness: docker.DockerClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(image.API_VERSION_ENV, "9.99")  # newer than any engine speaks: it answers 400
    assert image.engine().api_version == witness.version()["ApiVersion"]
    monkeypatch.setenv(image.API_VERSION_ENV, "auto")  # the SDK's word for "ask the engine", honoured the same way
    assert image.engine().api_version == witness.version()["ApiVersion"]


def test_no_engine_is_one_cannot_grade(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(image.CannotGrade, match="make engine"):
        image.engine()


def test_the_command_line_asks_for_its_container_before_importing_pydantic_or_the_task(client, good_zip: Path) -> None:
    """The container's start runs on the engine while the host imports pydantic and the task, not after."""
    probe = (
        "import sys\n"
        "import oracle.cli, oracle.sandbox\n"
        "loaded = []\n"
        "start = oracle.sandbox.Standby.__init__\n"
        "def noting(self, *args, **kwargs):\n"
        "    loaded.extend(m for m in sys.modules if m.split('.')[0] == 'pydantic' or m.startswith('oracle.tasks.'))\n"
        "    start(self, *args, **kwargs)\n"
        "oracle.sandbox.Standby.__init__ = noting\n"
        f"code = oracle.cli.main(['grade', '--mode', 'base', {str(good_zip)!r}])\n"
        "print(code, ','.join(sorted(set(loaded))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1:] == ["0 "], done.stdout[-500:] + done.stderr[-500:]
