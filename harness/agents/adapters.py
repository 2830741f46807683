"""The adapters a runner can run, by name: the scripted agent, then every registered agent CLI.

A product that hires agents offers these names (the testbed's hire form and
API); its runner turns one into an :class:`~agents.session.Adapter` with
:func:`adapter_for`. Adapters are imported on first use: a controller
listing the names loads no CLI runner and no metering proxy, and a scripted
run (a fresh runner process each) does not load the CLIs' registry either.
"""

from __future__ import annotations

from .session import Adapter

SCRIPTED = "scripted"


def adapter_names() -> list[str]:
    """Every adapter a runner knows, sorted."""
    from .registry import registered

    return sorted([SCRIPTED, *registered()])


def adapter_for(name: str) -> Adapter:
    """A fresh adapter for one run, or ValueError naming the known ones."""
    if name == SCRIPTED:
        from .scripted.agent import ScriptedAgent

        return ScriptedAgent()
    from .registry import registered

    if name in registered():
        from .cli_agent import adapter

        return adapter(name)
    raise ValueError(f"unknown adapter {name!r}; known: {adapter_names()}")
