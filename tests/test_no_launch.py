"""`make check`'s selection and its guard: what a test needs keeps it out, and starting it anyway fails the test.

An inner pytest session with `--no-launch` over tests that each start one heavy thing, the way a test with a
forgotten marker would: in its own process, in a child process, through the Docker CLI, with the refusal
swallowed. Every one of them must fail naming the marker it lacks; the marked ones must not run at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

INNER = """
import socket
import subprocess
import sys

import pytest

from tests.needs import needs


@pytest.fixture
@needs("product")
def product():
    raise AssertionError("set up under --no-launch")


def test_left_out_by_its_fixture(product):
    raise AssertionError("ran under --no-launch")


@pytest.mark.browser
def test_left_out_by_its_marker():
    raise AssertionError("ran under --no-launch")


def test_pure():
    assert sum([1, 2]) == 3


def test_starts_playwright():
    from playwright.sync_api import sync_playwright

    sync_playwright().start()


def test_connects_to_the_engine_and_swallows_the_refusal():
    try:
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect("/var/run/docker.sock")
    except Exception:
        pass


def test_a_child_process_starts_a_product():
    code = "from harness.products.testbed.instance import TestbedInstance; TestbedInstance().start()"
    subprocess.run([sys.executable, "-c", code], capture_output=True)


def test_runs_the_docker_command_line():
    try:
        subprocess.run(["docker", "ps"], capture_output=True)
    except Exception:
        pass
"""


def test_no_launch_leaves_out_what_needs_something_and_fails_what_starts_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EVERYDAY_NO_LAUNCH", raising=False)  # this session's own guard, if armed, stays out of it
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_subprocess("-p", "tests.needs", "--no-launch", "-p", "no:cacheprovider", "-rA")
    text = result.stdout.str()
    outcomes = result.parseoutcomes()
    assert outcomes.get("deselected") == 2, text
    assert "PASSED test_inner.py::test_pure" in text
    assert outcomes.get("errors") == 4, text
    for test in [
        "test_starts_playwright",
        "test_connects_to_the_engine_and_swallows_the_refusal",
        "test_a_child_process_starts_a_product",
        "test_runs_the_docker_command_line",
    ]:
        assert f"ERROR test_inner.py::{test} - " in text, test
    assert text.count("(needs `docker`)") >= 2 and "(needs `browser`)" in text and "(needs `product`)" in text


def test_a_fixture_declares_its_needs_and_an_unknown_need_is_refused() -> None:
    from tests.needs import NEEDS, needs

    @needs("browser", "docker")
    def starts_both() -> None: ...

    assert starts_both.needs == ("browser", "docker")  # type: ignore[attr-defined]
    assert {"browser", "docker", "product", "agent_cli", "cluster"} <= set(NEEDS)
    with pytest.raises(ValueError, match="unknown need"):
        needs("gpu")
