"""Shared test configuration: the harness plugin (real Chromium launch options and story cells), and the
`e2e` marker that keeps a fast inner loop (`pytest -m "not e2e"`) apart from the real-parts tests."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["harness.running.plugin"]

TESTS = Path(__file__).parent
# Whole folders whose every test drives a real product, browser, engine or agent CLI.
E2E_FOLDERS = frozenset({"calibration", "stories", "paperclip"})
# Fixtures that start one of those: a test that asks for any of them is end to end.
E2E_FIXTURES = frozenset(
    {"page", "browser", "context", "client", "oracle_image", "testbed", "fresh_testbed", "testbed_with_env", "api"}
    | {"replay", "docker_engine", "engine"}
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: drives a real product, browser, Docker engine or agent CLI (deselect with -m 'not e2e')"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        folder = Path(str(item.path)).relative_to(TESTS).parts[0]
        if folder in E2E_FOLDERS or E2E_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)
