"""The container environment against real engines: a sandboxed runner's lease, restart, Stop, teardown.

One run each, asserting several things: what the sandbox may reach, the lease
kept across a SIGKILL restart and re-adopted, Stop ending the container (the
engine's word, read with the Docker SDK, not the product's), the workspace
brought back, and nothing of the instance left on the engine after a
teardown with a run still going (what Ctrl-C does). The second test runs the
same sandbox on a second engine reached only through DOCKER_HOST, with the
oracle's remote-engine fixture.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import docker
import httpx
import pytest
from product_helpers import start_build

from harness.products.testbed import TestbedInstance
from oracle.engine import Image
from testbed.sandbox.agent_socket import SOCKET_NAME, socket_folder
from testbed.sandbox.containers import LABEL_DATA, data_label
from tests.oracle.conftest import client, oracle_image  # noqa: F401  (fixtures the second engine needs)
from tests.oracle.test_oracle_remote import SecondEngine, second_engine  # noqa: F401

pytestmark = pytest.mark.e2e  # starts a real product and real containers


@pytest.fixture()
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


def test_sandboxes_run_on_the_engine_docker_host_names(
    second_engine: SecondEngine,  # noqa: F811
    oracle_image: Image,  # noqa: F811
    engine_sdk: docker.DockerClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DOCKER_HOST", second_engine.unix)
    remote = docker.DockerClient(base_url=second_engine.unix)
    instance = TestbedInstance(pace=0.05, sandbox="container").start()
    try:
        api = instance.api
        task, run = start_build(api)
        assert run.identity.lease is not None
        assert remote.containers.get(run.identity.lease.sandbox_id).attrs["HostConfig"]["NetworkMode"] == "none"
        assert _left(engine_sdk, instance) == [], "a sandbox ran on the host's own engine"
        done = api.wait_until_done(task.id)
        assert done.deliveries and api.run(run.id).status == "succeeded"
    finally:
        instance.close()
    assert _left(remote, instance) == [], "the teardown left a sandbox on the engine DOCKER_HOST names"
    remote.close()
