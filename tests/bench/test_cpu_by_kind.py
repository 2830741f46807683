"""Every process a calibration run starts is filed under the kind that names it, whatever folders its later words name."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench.cpu_by_kind import OTHER, SAMPLER, CpuSampler, kind_of

FORKSERVER = (
    "from multiprocessing.forkserver import main; main(7, 11, ['harness.testbed.__main__', 'uvicorn.loops.auto'])"
)


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        (["/usr/bin/chromium-headless-shell", "--type=renderer", "--no-sandbox"], "Chromium"),
        (
            [
                "/venv/lib/python3.11/site-packages/playwright/driver/node",
                "/venv/.../playwright/driver/package/cli.js",
                "run-driver",
            ],
            "Playwright's driver (node)",
        ),
        (["/venv/bin/python", "-B", "-c", FORKSERVER], "product controllers"),
        (["/venv/bin/python", "-m", "harness.testbed.runner", "--controller=http://127.0.0.1:1"], "product runners"),
        (
            [
                "node",
                "/x/.agents/node_modules/@openai/codex/bin/codex.js",
                "exec",
                "--cd",
                "/tmp/run/testbed-1/workspaces/task-1",
            ],
            "agent CLIs",
        ),
        (
            ["node", "/var/cache/everyday-evals/paperclip/node_modules/paperclipai/dist/server.js"],
            "product controllers",
        ),
        (["/venv/bin/python", "-m", "harness.running.cell_worker"], "harness cell workers"),
        (["runc", "--root", "/var/run/docker/runtime-runc/moby"], "Docker engine"),
        (["/venv/bin/python", "-m", "calibration", "stories"], "harness, oracle and calibration"),
        (["bash", "-c", "make lint"], OTHER),
        (["/home/u/harness-dev/.venv/bin/python", "-c", "pass"], OTHER),  # the folder it runs from names nothing
        ([], OTHER),
    ],
)
def test_a_process_is_filed_by_its_first_words(command: list[str], kind: str) -> None:
    assert kind_of(command) == kind


def test_a_process_without_a_command_is_filed_by_its_name() -> None:
    assert kind_of([], "dockerd") == "Docker engine"


def test_a_child_s_cpu_is_filed_and_the_rest_is_shown_unseen() -> None:
    """The child burns about a CPU-second under a name no kind claims: it is found under other processes."""
    with CpuSampler(every_s=0.1) as sampler:
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import time\nend = time.process_time() + 1\nwhile time.process_time() < end: pass\ntime.sleep(0.3)",
            ],
            check=True,
        )
    result = sampler.result
    assert result is not None
    other = next(share for share in result.kinds if share.kind == OTHER)
    assert other.cpu_s >= 0.8 and result.busy_s >= other.cpu_s
    assert SAMPLER in {share.kind for share in result.kinds}
    assert "other processes" in result.table(per=2, per_what="cell") and "per cell" in result.table(
        per=2, per_what="cell"
    )
