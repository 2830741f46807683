"""Grading through another Docker engine, reached only by its own DOCKER_HOST.

A second, real `dockerd` is started for this module (its own socket, data
root, exec root and pidfile; no bridge, no iptables, like the machine's own
engine), the oracle image is copied into it through the engine API
(`docker save | docker load`), and the oracle CLI grades with DOCKER_HOST
pointing at it. Nothing of the host engine is used by that grade, so a
delivery reaching the container through a bind mount of a host folder would
not work here in general; the copy does. At the end the engine is stopped,
its folders removed, and the test proves no process of it is left running.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest
from docker.errors import DockerException

from oracle.sandbox import LABEL_PID

STARTUP_S = 60.0


def _processes_mentioning(text: str) -> list[int]:
    """Pids whose command line mentions `text` (the private folder every process of the second engine names)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _unmount_below(folder: Path) -> None:
    """Unmount whatever a stopped engine left mounted below its folder (deepest first), so the folder can go."""
    mounts = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    for point in sorted((m for m in mounts if m.startswith(str(folder))), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], capture_output=True)


def _stop(process: subprocess.Popen[bytes], folder: Path) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    deadline = time.monotonic() + 15  # its supervised containerd exits just after it
    while (left := _processes_mentioning(str(folder))) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)  # only processes naming our own private folder, i.e. started by this fixture
        except ProcessLookupError:
            pass
    _unmount_below(folder)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def second_engine(oracle_image) -> Iterator[str]:
    """DOCKER_HOST of a second dockerd that holds a copy of the oracle image; torn down completely afterwards."""
    dockerd = shutil.which("dockerd")
    if dockerd is None:
        pytest.fail("this test starts a second Docker engine and needs `dockerd` on PATH")
    folder = Path(
        tempfile.mkdtemp(prefix="ee-dockerd-", dir="/tmp")
    )  # short: unix socket paths are limited to 108 bytes
    host = f"unix://{folder}/docker.sock"
    # containerd namespaces allow no "_" or doubled separators, which mkdtemp's names may hold
    namespace = f"ee-test-{uuid.uuid4().hex[:12]}"
    log = (folder / "dockerd.log").open("wb")
    process = subprocess.Popen(
        [
            dockerd,
            "--host",
            host,
            "--data-root",
            str(folder / "data"),
            "--exec-root",
            str(folder / "exec"),
            "--pidfile",
            str(folder / "docker.pid"),
            "--iptables=false",
            "--ip-masq=false",
            "--bridge=none",
            "--containerd-namespace",
            namespace,
            "--containerd-plugins-namespace",
            f"{namespace}-plugins",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            try:
                remote = docker.DockerClient(base_url=host, timeout=120)
                remote.ping()
                break
            except DockerException:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the second dockerd did not start: {(folder / 'dockerd.log').read_text()[-600:]}")
                time.sleep(0.2)
        local = docker.from_env()
        remote.images.load(local.images.get(oracle_image.id).save(named=True))
        local.close()
        yield host
        remote.close()
    finally:
        log.close()
        _stop(process, folder)
        assert process.poll() is not None and not _processes_mentioning(str(folder)), (
            "the second engine left processes running"
        )
        assert not folder.exists()


def _starts_by(client: docker.DockerClient, pid: int, since: int) -> int:
    """How many oracle containers the grading process `pid` started on this engine since `since` (from the engine's events)."""
    until = int(time.time()) + 1
    events = client.api.events(
        since=since,
        until=until,
        decode=True,
        filters={"type": "container", "event": "start", "label": f"{LABEL_PID}={pid}"},
    )
    return sum(1 for _ in events)


def test_a_grade_runs_on_the_engine_docker_host_names(
    second_engine: str, oracle_image, witness: docker.DockerClient, good_zip: Path
) -> None:
    env = {**os.environ, "DOCKER_HOST": second_engine}
    env.pop("EVERYDAY_ORACLE_IMAGE", None)
    since = int(time.time()) - 1
    grading = subprocess.Popen(
        [sys.executable, "-m", "oracle", "grade", "--mode", "separator+max-length", str(good_zip)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    stdout, stderr = grading.communicate(timeout=180)
    assert grading.returncode == 0, stderr
    result = json.loads(stdout)
    assert result["passed"] is True and result["image"] == oracle_image.id
    remote = docker.DockerClient(base_url=second_engine)
    try:
        assert _starts_by(remote, grading.pid, since) == 1, (
            "the grade's container did not run on the engine DOCKER_HOST names"
        )
        assert remote.api.containers(all=True) == [], "the grade left a container on the engine it used"
        assert not remote.api.volumes().get("Volumes"), "the grade left its /oracle volume behind"
    finally:
        remote.close()
    assert _starts_by(witness, grading.pid, since) == 0, "the grade must not have run on the host's own engine"


def test_the_second_engine_cannot_pull_so_a_missing_image_is_exit_2(second_engine: str, good_zip: Path) -> None:
    env = {**os.environ, "DOCKER_HOST": second_engine, "EVERYDAY_ORACLE_IMAGE": "everyday-evals-oracle:absent"}
    done = subprocess.run(
        [sys.executable, "-m", "oracle", "grade", "--mode", "base", str(good_zip)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
