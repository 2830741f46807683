"""The container environment against real engines: a sandboxed runner's lease, restart, Stop, teardown.

One run each, asserting several things: what the sandbox may reach, the lease
kept across a SIGKILL restart and re-adopted, Stop ending the container (the
engine's word, read with the Docker SDK, not the product's), the workspace
brought back, and nothing of the instance left on the engine after a
teardown with a run still going. The second test plays the container
build-revise cell through `harness run` on a second engine reached only
through DOCKER_HOST (the oracle's remote-engine fixture), to a pass and then
to a Ctrl-C mid-run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import docker
import httpx
import pytest
from product_helpers import start_build

from harness.core.verdicts import Verdict
from harness.products import product_driver
from harness.products.testbed import TestbedInstance
from harness.products.testbed.instance import DATA_PREFIX
from harness.running.ownership import release_run_folder
from harness.testbed.sandbox.agent_socket import SOCKET_NAME, socket_folder
from harness.testbed.sandbox.containers import LABEL, LABEL_DATA, data_label
from oracle.engine import Image
from tests.needs import needs
from tests.oracle.conftest import client, oracle_image  # noqa: F401  (fixtures the second engine needs)
from tests.oracle.test_oracle_remote import SecondEngine, second_engine  # noqa: F401
from tests.stories.harness_runs import attempts, ctrl_c, harness_run, run_temp, wait_for

CELL = "everyday-workflows-scripted.scripted.container.build-revise"

pytestmark = pytest.mark.e2e  # starts a real product and real containers


@pytest.fixture()
@needs("docker")
def engine_sdk() -> Iterator[docker.DockerClient]:
    sdk = docker.from_env()
    yield sdk
    sdk.close()


def _running(sdk: docker.DockerClient, container_id: str) -> bool:
    try:
        return bool(sdk.containers.get(container_id).status == "running")
    except docker.errors.NotFound:
        return False


def _left(sdk: docker.DockerClient, instance: TestbedInstance) -> list[str]:
    """Containers of the instance still on the engine, running or not."""
    label = f"{LABEL_DATA}={data_label(instance.data_dir)}"
    return [c.id for c in sdk.containers.list(all=True, filters={"label": label})]


def _runner_volumes(sdk: docker.DockerClient) -> list[str]:
    return [v.name for v in sdk.volumes.list(filters={"label": LABEL})]


def test_a_sandboxed_run_is_contained_re_adopted_and_stopped(engine_sdk: docker.DockerClient) -> None:
    instance = TestbedInstance(pace=0.4, sandbox="container").start()
    try:
        api = instance.api
        task, run = start_build(api)
        lease = run.identity.lease
        assert lease is not None and lease.active and run.identity.pid is None
        held = engine_sdk.containers.get(lease.sandbox_id)
        host = held.attrs["HostConfig"]
        assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] and host["CapDrop"] == ["ALL"]
        assert held.attrs["Config"]["User"] == "65534:65534"
        assert {m["Type"] for m in held.attrs["Mounts"]} == {"volume", "bind"}
        agent_socket = httpx.Client(
            transport=httpx.HTTPTransport(uds=str(socket_folder(instance.data_dir) / SOCKET_NAME))
        )
        assert agent_socket.get("http://controller/api/tasks").status_code == 403  # a person's API is not served there
        assert agent_socket.get(f"http://controller/api/agent/runs/{run.id}/context").status_code == 401
        agent_socket.close()

        instance.restart(signal.SIGKILL)
        after = api.run(run.id)
        assert after.status == "running", "the run ended before the restart could be exercised"
        assert after.identity == run.identity, "the lease changed across the restart"
        assert "re-adopted" in instance.controller_log.read_text()

        stopped = api.stop_run(run.id)
        assert not _running(engine_sdk, lease.sandbox_id), "Stop answered while the engine still ran the sandbox"
        final = api.run(run.id)
        assert final.status == "cancelled" and final.identity.lease is not None
        assert not final.identity.lease.active and final.identity.lease.sandbox_gone
        assert final.identity.lease.workspace_returned and "slugify.py" in api.workspace_hashes(task.id)
        assert stopped.run.id == run.id

        _, going = start_build(api)  # a run still going when the harness tears down (Ctrl-C closes the instance)
        assert going.identity.lease is not None
    finally:
        instance.close()
    assert _left(engine_sdk, instance) == [], "the teardown left a sandbox on the engine"
    assert not socket_folder(instance.data_dir).exists()


def test_the_container_cell_passes_on_a_second_engine_and_ctrl_c_leaves_nothing_there(
    second_engine: SecondEngine,  # noqa: F811
    oracle_image: Image,  # noqa: F811
    engine_sdk: docker.DockerClient,
    tmp_path: Path,
) -> None:
    """`harness run` of the container build-revise cell with DOCKER_HOST at a second engine on this machine: it
    passes, then a second play interrupted by Ctrl-C while its runner's container runs; neither leaves a
    container or volume on that engine, nor anything of the run on the host's own."""
    env = {**os.environ, "DOCKER_HOST": second_engine.unix}
    remote = docker.DockerClient(base_url=second_engine.unix)
    try:
        played = tmp_path / "played"
        done = harness_run(played, "--id", CELL, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        [record] = attempts(played)
        assert record.verdict is Verdict.PASSED, record.reason
        assert remote.images.list(name="everyday-evals-runner"), (
            "the runner image was not built on DOCKER_HOST's engine"
        )
        assert remote.containers.list(all=True, filters={"label": LABEL}) == [] and _runner_volumes(remote) == []

        interrupted = tmp_path / "interrupted"
        temp = run_temp(interrupted)
        temp.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "harness.cli", "run", "--id", CELL, "--results", str(interrupted)]
        harness = subprocess.Popen(
            [*command, "--campaign", "test"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**env, "TMPDIR": str(temp)},
        )
        [held] = wait_for(lambda: remote.containers.list(filters={"label": LABEL}), "a runner's container there")
        assert held.attrs["HostConfig"]["NetworkMode"] == "none"
        same_data = {"label": f"{LABEL_DATA}={held.labels[LABEL_DATA]}"}
        assert engine_sdk.containers.list(all=True, filters=same_data) == [], "a sandbox ran on the host's own engine"
        output = ctrl_c(harness)
        assert harness.returncode == 128 + signal.SIGINT, output
        [stopped] = attempts(interrupted)
        assert stopped.verdict is Verdict.INFRASTRUCTURE_FAILED and stopped.interrupted, stopped.reason
        assert remote.containers.list(all=True, filters={"label": LABEL}) == [], "Ctrl-C left a sandbox"
        assert _runner_volumes(remote) == [], "Ctrl-C left a sandbox's workspace volume"
    finally:
        remote.close()


def test_a_killed_runs_sandbox_goes_with_its_run_folder(
    engine_sdk: docker.DockerClient,
    oracle_image: Image,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A run killed outright tore no instance down: releasing its folder (as the next run's clean-up does) removes
    the sandbox it left on the engine and its agent socket's folder, and asks the engine nothing of other runs."""
    product_driver("testbed")  # a release asks the drivers its process loaded; the clean-up of a dead run, every one
    run = tmp_path / "killed-run"
    data_dir = run / f"{DATA_PREFIX}left"
    data_dir.mkdir(parents=True)
    socket_folder(data_dir).mkdir()
    labels = {LABEL: "1", LABEL_DATA: data_label(data_dir)}
    left = engine_sdk.containers.create(oracle_image.id, ["true"], labels=labels)
    other = engine_sdk.containers.create(oracle_image.id, ["true"], labels={LABEL: "1", LABEL_DATA: "another-run"})
    try:
        release_run_folder(run)
        remaining = [c.id for c in engine_sdk.containers.list(all=True, filters={"label": LABEL})]
        assert left.id not in remaining and other.id in remaining
        assert not socket_folder(data_dir).exists() and not run.exists()
    finally:
        for container in (left, other):
            with contextlib.suppress(docker.errors.NotFound):
                container.remove(force=True)
