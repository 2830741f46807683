"""The wheel installs exactly the project's four packages, beside the tools its users already have.

A generic top-level name (``agents``, ``replay``, ``bench``, ``testbed``) would
overwrite or be overwritten by another distribution's: the OpenAI Agents SDK
owns ``agents``. The test builds the wheel, installs it with that SDK from the
registry into a fresh virtual environment, and imports both.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.needs import marked

PROJECT = Path(__file__).resolve().parents[2]
TOP_LEVEL = {"harness", "stories", "oracle", "calibration"}


def _run(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@marked("fresh_venv")
def test_the_wheel_holds_four_packages_and_installs_beside_the_openai_agents_sdk(tmp_path: Path) -> None:
    source = tmp_path / "source"  # a copy: a build writes its own folders beside the sources
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(PROJECT / name, source / name)
    for package in TOP_LEVEL:
        shutil.copytree(PROJECT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path, source, cwd=tmp_path)
    [wheel] = tmp_path.glob("everyday_evals-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/", 1)[0] for name in archive.namelist() if "/" in name}
    assert {top for top in tops if not top.endswith(".dist-info")} == TOP_LEVEL

    venv = tmp_path / "venv"
    # No pip of its own: this pip installs into it (--python), so nothing but the two and their needs is there.
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    # --no-compile: what is proven is that both import; compiling every installed module first proves nothing more.
    install = [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-compile"]
    _run(*install, wheel, "openai-agents", cwd=tmp_path)
    shown = _run(
        python,
        "-c",
        "from agents import Agent, Runner; import harness, harness.agents.registry, stories, oracle, calibration;"
        " import agents; print(agents.__file__); print(Agent.__module__)",
        cwd=tmp_path,
    )
    sdk_file, agent_module = shown.split()
    assert "site-packages/agents/" in sdk_file and agent_module.startswith("agents.")
