"""What the testbed's forkserver imports before its first fork, by how many controllers the process will fork."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

from harness.products.testbed.forked import MCP_MODULES, preloaded_modules


def test_only_a_process_that_forks_many_controllers_preloads_the_mcp_sdk() -> None:
    one, many = preloaded_modules(many_controllers=False), preloaded_modules(many_controllers=True)
    assert not set(MCP_MODULES) & set(one), "one cell would wait 0.6 s at its first start for an SDK it may not use"
    assert set(MCP_MODULES) <= set(many)
    assert one[-1] == many[-1] == "harness.testbed.forkserver_setup", "the freeze comes after every import"


def test_every_preloaded_module_exists() -> None:
    """A misspelt name would only print a warning in the forkserver and preload nothing."""
    for name in preloaded_modules(many_controllers=True)[:-1]:
        assert importlib.import_module(name).__name__ == name


def test_the_forkserver_imports_nothing_of_the_harness_side_of_the_testbed() -> None:
    """Its preload (setup included) in an interpreter of its own: the driver, its page objects and Playwright are the
    harness's, and a controller needs none of them."""
    preload = "import importlib, json, sys\n"
    preload += f"for name in {json.dumps(preloaded_modules(many_controllers=True))}: importlib.import_module(name)\n"
    preload += "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('harness.products', 'playwright')))))"
    loaded = subprocess.run([sys.executable, "-c", preload], capture_output=True, text=True, check=True).stdout
    assert json.loads(loaded) == []
