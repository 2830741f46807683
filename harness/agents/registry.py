"""The agent CLI registry: one entry per CLI, and every list of CLIs in the project derives from it.

An entry is an :class:`AgentCli` subclass marked with :func:`agent_cli`: its
name, pinned npm package, launch, wire protocol, cost parser and process
kinds, declared in one module. Entries come in through the entry-point group
``everyday_evals.agents`` (as Inspect AI's sandbox registry loads outside
sandboxes): each entry point names a module, or a package whose modules are
all imported, for their :func:`agent_cli` classes. This project's own CLIs
come in the same way (``pyproject.toml`` names the package :mod:`harness.agents.clis`,
one module per CLI), so adding one is one new module. The runner's adapters,
the catalog's replay and live profiles, the npm pins ``make agents`` installs
and the CPU benchmark's process kinds are all read from :func:`registered`.
"""

from __future__ import annotations

import importlib
import pkgutil
from abc import ABC, abstractmethod
from importlib.metadata import entry_points
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict

from .launch import LaunchRequest, LaunchSpec, first_json_field
from .metering.providers import KEY_VARIABLE, Provider
from .metering.usage import Protocol

ENTRY_POINT_GROUP = "everyday_evals.agents"
RESERVED_NAMES = ("scripted",)  # the runner's own, deterministic agent: no CLI may take its name


class RegistryError(ValueError):
    """An entry that cannot be registered (a name taken twice, a reserved name), or an entry point that fails."""


class LiveProfile(BaseModel):
    """A paid profile of the CLI: a real model, through the metering proxy to the provider."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str  # the profile's name in execution IDs, e.g. runner-codex
    model: str
    description: str
    only_cases: tuple[str, ...] = ()  # when set, the only cases the profile makes cells for


class AgentCli(ABC):
    """One agent CLI, all of it declared here; subclasses set the class attributes and :meth:`launch`.

    The parsers read one JSON event of the CLI's own output stream (one event a
    line): the runner keeps the last answer each gives over a turn.
    """

    name: ClassVar[str]  # the adapter name: the runner's --adapter, profile names, provenance
    package: ClassVar[str]  # the npm package
    version: ClassVar[str]  # pinned exactly: `make agents` installs it, `locate` refuses any other
    binary: ClassVar[str]  # its command in node_modules/.bin
    # The native program the command starts, under node_modules, run directly where there is no node (a sandbox's
    # image); "" when the command is the native program itself.
    native: ClassVar[str] = ""
    install_scripts: ClassVar[bool] = False  # npm may run the package's install scripts (a native binary's link)
    provider: ClassVar[Provider]  # whose prices apply and whose key the metering proxy holds
    volatile: ClassVar[tuple[str, ...]] = ()  # regexes for what varies between runs in its model calls (cassettes)
    protocol: ClassVar[Protocol]  # the wire protocol of its model calls
    session_field: ClassVar[str]  # the JSON field that names its session in its output
    replay_model: ClassVar[str]  # the model its free replay profile names (priced, never paid)
    live_profiles: ClassVar[tuple[LiveProfile, ...]] = ()
    process_names: ClassVar[tuple[str, ...]] = ()  # what its processes' command lines show; () is its binary

    @abstractmethod
    def launch(self, request: LaunchRequest) -> LaunchSpec:
        """The exact argv, environment and config files of one turn, offline but for the metering proxy."""

    def session_id(self, output: str) -> str | None:
        """The session a turn ran in (to resume it with the user's next messages), from the CLI's output."""
        return first_json_field(output, self.session_field)

    def final_text(self, event: dict[str, Any]) -> str | None:
        """The agent's words, if this event carries its final message."""
        return None

    def reported_cost_usd(self, event: dict[str, Any]) -> float | None:
        """The CLI's own cost figure, if this event carries one (kept beside the proxy's, never instead)."""
        return None

    @property
    def key_variable(self) -> str:
        """The operator's variable holding the provider key a live run needs."""
        return KEY_VARIABLE[self.provider]

    @property
    def processes(self) -> tuple[str, ...]:
        return self.process_names or (self.binary,)


_ENTRIES: dict[str, AgentCli] = {}
_loaded = False
C = TypeVar("C", bound=type[AgentCli])


def agent_cli(cls: C) -> C:
    """Register one CLI (a class decorator); registering the same class again is a no-op."""
    name = cls.name
    if name in RESERVED_NAMES:
        raise RegistryError(f"agent CLI {cls.__qualname__}: the name {name!r} is reserved")
    known = _ENTRIES.get(name)
    if known is not None and type(known) is not cls:
        raise RegistryError(f"agent CLI {name!r} is registered twice: {type(known).__module__} and {cls.__module__}")
    _ENTRIES[name] = cls()
    return cls


def _load() -> None:
    """Import every module the entry points name (each module of a named package), once."""
    global _loaded
    if _loaded:
        return
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda entry: entry.name)
    if not found:
        raise RegistryError(f"no entry points in {ENTRY_POINT_GROUP}: install the project (`make venv`)")
    for entry in found:
        try:
            root = entry.load()
            for module in pkgutil.iter_modules(getattr(root, "__path__", [])):
                importlib.import_module(f"{root.__name__}.{module.name}")
        except Exception as error:
            raise RegistryError(
                f"{ENTRY_POINT_GROUP} {entry.name} ({entry.value}): {type(error).__name__}: {error}"
            ) from error
    _loaded = True


def registered() -> dict[str, AgentCli]:
    """Every registered CLI by name, in name order."""
    _load()
    return dict(sorted(_ENTRIES.items()))


def cli(name: str) -> AgentCli:
    """The registered CLI ``name``, or a one-line error naming the known ones."""
    found = registered().get(name)
    if found is None:
        raise RegistryError(f"unknown agent CLI {name!r}; known: {', '.join(registered())}")
    return found
