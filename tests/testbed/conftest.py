"""Fixtures for the testbed's own tests: real controller processes through the harness driver."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.driver import ApiClient, TestbedInstance
from harness.driver.api import Agent, Run, Task
from oracle.contract import BUILD_TASK, BUILD_TASK_TITLE

FAST_PACE = 0.05


@pytest.fixture(scope="module")
def testbed() -> Iterator[TestbedInstance]:
    """One fast instance per test module; tests create their own agents and tasks on it."""
    with TestbedInstance(pace=FAST_PACE) as instance:
        yield instance


@pytest.fixture
def fresh_testbed(request: pytest.FixtureRequest) -> Iterator[TestbedInstance]:
    """An instance of its own, for tests that restart or slow it; pace from ``@pytest.mark.pace(s)``."""
    marker = request.node.get_closest_marker("pace")
    with TestbedInstance(pace=marker.args[0] if marker else FAST_PACE) as instance:
        yield instance


@pytest.fixture
def api(testbed: TestbedInstance) -> ApiClient:
    return testbed.api


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:6]}"


def new_agent(api: ApiClient, model: str = "default", **fields: object) -> Agent:
    return api.create_agent(name=unique("Agent"), model=model, **fields)  # type: ignore[arg-type]


def start_build(api: ApiClient, model: str = "default") -> tuple[Task, Run]:
    """A build task whose run is active and has saved slugify.py: the moment stories inject faults."""
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=new_agent(api, model).id)
    return task, api.wait_until_file_saved(task.id, "slugify.py")


def runner_token(pid: int) -> str:
    """The run token a runner was started with (root can read its initial environment)."""
    for entry in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
        if entry.startswith(b"TESTBED_RUN_TOKEN="):
            return entry.split(b"=", 1)[1].decode()
    raise AssertionError(f"runner {pid} has no token in its environment")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "pace(seconds): scripted agent pace for the fresh_testbed fixture")
