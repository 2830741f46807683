"""The guard `make check` arms: a test it selects may start no browser, container, product, agent CLI or cluster.

Why a guard and not trust: tests are selected by the markers their fixtures
and helpers declare (tests/needs.py), and a marker forgotten on a test that
plays a cell through a helper would put a browser and a product into the
inner loop unseen. Armed, this module refuses every launch point a need
names, and says which marker the test lacks.

It guards the test process and, through `sitecustomize` on PYTHONPATH (this
folder), every Python process the test starts (`harness run`, a helper
script, an xdist worker): a child's refusal cannot fail the test by itself
(the child may be expected to fail), so every refusal is also written as one
line to the file named by $EVERYDAY_NO_LAUNCH, which the test process reads
after each test (tests/needs.py). Standard library only: it runs before
anything else in every child.

Three kinds of launch point are refused:
- project and library entry points (a product instance's start, Playwright's
  start, an agent CLI's launch, Ray's start), patched when their module is
  imported, so a child that never imports them pays nothing;
- executables (the docker CLI, Chromium, the testbed's `serve`, a fresh virtualenv or pip install);
- a connection to the Docker engine's socket (the oracle's own client and
  docker-py both connect through `socket.socket.connect`).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import Any

ARMED_ENV = "EVERYDAY_NO_LAUNCH"
"""Set (to this process's trip file) in every process the guard watches; unset means the guard is off."""

# module -> [(attribute path, need)]: patched when the module is imported. Names of modules that do not exist
# (a plug-in not installed, a module since moved) are simply never imported.
ENTRY_POINTS: dict[str, list[tuple[str, str]]] = {
    "playwright.sync_api._context_manager": [("PlaywrightContextManager.__enter__", "browser")],
    "playwright.async_api._context_manager": [("PlaywrightContextManager.__aenter__", "browser")],
    "harness.products.testbed.instance": [("TestbedInstance.start", "product")],
    "harness.products.testbed.forked": [("ForkedController.__init__", "product")],
    "everyday_paperclip.instance": [("PaperclipInstance.start", "product")],
    "everyday_paperclip.findings.isolated_paperclip": [("Paperclip.start", "product")],
    "everyday_vibe_kanban.instance": [("VibeKanbanInstance.start", "product")],
    "harness.agents.launch": [("start", "agent_cli")],
    "ray": [("init", "cluster")],
    "ray.cluster_utils": [("Cluster.__init__", "cluster")],
}
EXECUTABLES = {
    "docker": "docker",
    "dockerd": "docker",
    "podman": "docker",
    "chromium": "browser",
    "chrome": "browser",
    "headless_shell": "browser",
    "chrome-headless-shell": "browser",
    "ray": "cluster",
}


class LaunchForbidden(RuntimeError):
    """A test the check selection runs tried to start something heavy."""


def trip(need: str, what: str) -> None:
    """Record the refusal for the test process to find, then refuse."""
    message = (
        f"`make check` runs tests that need nothing heavy, but this one started {what}:"
        f" mark it `@pytest.mark.{need}` (or give the fixture that starts it `@needs({need!r})`)"
    )
    path = os.environ.get(ARMED_ENV)
    if path:
        line = json.dumps({"need": need, "what": what, "pid": os.getpid()})
        try:
            with open(path, "a", encoding="utf-8") as trips:
                trips.write(line + "\n")
        except OSError:
            pass
    raise LaunchForbidden(message)


def _refusing(need: str, what: str) -> Callable[..., Any]:
    def refused(*args: Any, **kwargs: Any) -> Any:
        trip(need, what)

    refused.no_launch = True  # type: ignore[attr-defined]
    return refused


def _patch(module: Any, dotted: str, need: str) -> None:
    owner: Any = module
    *parents, name = dotted.split(".")
    for parent in parents:
        owner = getattr(owner, parent, None)
        if owner is None:
            return
    current = getattr(owner, name, None)
    if current is not None and not getattr(current, "no_launch", False):
        setattr(owner, name, _refusing(need, f"{module.__name__}.{dotted}"))


def _patch_module(module: Any) -> None:
    for dotted, need in ENTRY_POINTS.get(module.__name__, ()):
        _patch(module, dotted, need)


class _PatchingLoader(importlib.abc.Loader):
    """Runs the real loader, then refuses the module's launch points."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        _patch_module(module)


class _PatchingFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of ENTRY_POINTS with the other finders and wraps their loader."""

    _local = threading.local()

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if fullname not in ENTRY_POINTS or getattr(self._local, "busy", False):
            return None
        self._local.busy = True
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    if spec.loader is not None:
                        spec.loader = _PatchingLoader(spec.loader)
                    return spec
            return None
        finally:
            self._local.busy = False


def _command_need(args: Any) -> tuple[str, str] | None:
    """The need an executable's command line shows, if any."""
    argv = [os.fsdecode(args)] if isinstance(args, str | bytes | os.PathLike) else [os.fsdecode(a) for a in args]
    if not argv:
        return None
    name = PurePath(argv[0].split()[0] if len(argv) == 1 else argv[0]).name
    need = EXECUTABLES.get(name)
    if need:
        return need, f"`{' '.join(argv)[:120]}`"
    if "run-driver" in argv:  # Playwright's driver, which launches the browser
        return "browser", "Playwright's driver"
    words = " ".join(argv)
    if re.search(r"-m (harness\.)?testbed serve", words):
        return "product", "the testbed's controller"
    if re.search(r"-m (venv|pip (install|wheel|download))\b", words):
        return "fresh_venv", f"`{words[:120]}`"
    # Paperclip's npm packages (paperclipai, @paperclipai/server), not a folder that happens to say paperclip.
    if name == "node" and "paperclipai" in words.lower():
        return "product", "Paperclip"
    return None


def _engine_sockets() -> set[str]:
    host = os.environ.get("DOCKER_HOST", "")
    paths = {"/var/run/docker.sock", "/run/docker.sock"}
    if host.startswith("unix://"):
        paths.add(host.removeprefix("unix://"))
    return paths


def install() -> None:
    """Arm the guard in this process (idempotent): the import hook, the exec check and the engine socket check."""
    if any(isinstance(finder, _PatchingFinder) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, _PatchingFinder())
    for name in list(ENTRY_POINTS):
        if name in sys.modules:
            _patch_module(sys.modules[name])

    popen_init = subprocess.Popen.__init__

    def guarded_popen(self: Any, args: Any, *rest: Any, **kwargs: Any) -> None:
        found = _command_need(args)
        if found:
            trip(*found)
        popen_init(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = guarded_popen  # type: ignore[method-assign]

    connect = socket.socket.connect
    engine_sockets = _engine_sockets()

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if self.family == socket.AF_UNIX and isinstance(address, str | bytes):
            path = os.fsdecode(address)
            if path in engine_sockets and os.path.exists(path):  # a socket that is not there starts nothing
                trip("docker", f"a connection to the Docker engine ({path})")
        connect(self, address)

    socket.socket.connect = guarded_connect  # type: ignore[method-assign]
