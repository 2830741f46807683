"""The agent runtime every product's agents share: adapters, the CLI registry, the metering proxy, the agent client.

A product's runner hands an adapter (:mod:`.adapters`: the scripted agent in
:mod:`.scripted`, or a CLI registered in :mod:`.registry`, one module each
in :mod:`.clis`) an :class:`~agents.session.AgentSession`; a CLI reaches its
model only through :mod:`.metering`. Nothing here imports a product, the
harness or the stories: they import this.
"""

from __future__ import annotations

import sys

# httpx imports its own command line (click, rich, pygments: a large part of what a fresh runner imports) whenever
# those happen to be installed, as the dev tools install them, and falls back to a stub when they are not. No process
# of ours runs httpx's command line, so none loads it: a runner is a fresh interpreter for every run. Figures:
# docs/measurements.md.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # None: "not importable"
