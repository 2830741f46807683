"""Helper of the ``writes-after-stop`` persona: once its runner is gone, keep writing to the workspace.

Bounded (60 s) so a forgotten one cannot run forever; the harness's instance
teardown kills it earlier by its command line (it names the data folder).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import psutil


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def main(workspace: str, runner_pid: str) -> None:
    target = Path(workspace) / "progress.log"
    while alive(int(runner_pid)):
        time.sleep(0.1)
    deadline = time.monotonic() + 60
    count = 0
    while time.monotonic() < deadline and target.parent.exists():
        count += 1
        with target.open("a") as handle:
            handle.write(f"still working {count}\n")
        time.sleep(0.2)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
