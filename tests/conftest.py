"""Shared test configuration: real Chromium, launched the way this machine allows."""

from __future__ import annotations

import pytest

from harness.browser import launch_options


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Point pytest-playwright at an existing Chromium; fail loudly when there is none."""
    return {**browser_type_launch_args, **launch_options()}
