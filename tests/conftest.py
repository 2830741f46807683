"""Shared test configuration: the harness plugin (real Chromium launch options and story cells)."""

pytest_plugins = ["harness.running.plugin"]
