"""Fixtures for the testbed's own tests: real controller processes through the harness driver."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.products.testbed import ApiClient, TestbedInstance
from tests.needs import needs

FAST_PACE = 0.05


@pytest.fixture(scope="module")
@needs("product")
def testbed() -> Iterator[TestbedInstance]:
    """One fast instance per test module; tests create their own agents and tasks on it."""
    with TestbedInstance(pace=FAST_PACE) as instance:
        yield instance


@pytest.fixture
@needs("product")
def fresh_testbed(request: pytest.FixtureRequest) -> Iterator[TestbedInstance]:
    """An instance of its own, for tests that restart or slow it; pace from ``@pytest.mark.pace(s)``."""
    marker = request.node.get_closest_marker("pace")
    with TestbedInstance(pace=marker.args[0] if marker else FAST_PACE) as instance:
        yield instance


@pytest.fixture
@needs("product")
def testbed_with_env(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[TestbedInstance]:
    """An instance whose controller starts with extra environment, from ``@pytest.mark.controller_env(NAME=value)``.

    The controller inherits this process's environment, so the variables are
    set here for the test only (test hooks, settings, a provider key to leak).
    """
    marker = request.node.get_closest_marker("controller_env")
    for name, value in (marker.kwargs if marker else {}).items():
        monkeypatch.setenv(name, value)
    with TestbedInstance(pace=FAST_PACE) as instance:
        yield instance


@pytest.fixture
def api(testbed: TestbedInstance) -> ApiClient:
    return testbed.api


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "pace(seconds): scripted agent pace for the fresh_testbed fixture")
    config.addinivalue_line("markers", "controller_env(**variables): environment for the testbed_with_env controller")
    config.addinivalue_line(
        "markers", "replay(script, time_limit): replay script and agent time limit for test_cli_agents' product"
    )
