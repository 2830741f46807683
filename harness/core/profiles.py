"""The agent profiles: the scripted agent, and a replay and a live profile for each registered agent CLI.

A new CLI's registry entry (:mod:`harness.agents.registry`) brings its
profiles; a product's declaration names the CLIs it runs against the replay.
"""

from __future__ import annotations

from harness.agents.registry import AgentCli, LiveProfile, registered
from harness.core.catalog import Profile

SCRIPTED = Profile(
    name="scripted",
    adapter="scripted",
    model="default",
    live=False,
    evidence_mode="scripted",
    description="The testbed's deterministic, free agent: proves product and harness paths, not model quality.",
)


def live_profile(cli: AgentCli, live: LiveProfile) -> Profile:
    """A real agent CLI with a real model, through the metering proxy to the provider: paid, manual-only."""
    return Profile(
        name=live.name,
        adapter=cli.name,
        model=live.model,
        live=True,
        evidence_mode="live",
        required_env=(cli.key_variable,),
        required_binary=cli.name,
        model_server="provider",
        agent_cli=cli.name,
        only_cases=live.only_cases,
        description=live.description,
    )


def replay_profile(cli: AgentCli) -> Profile:
    """A real agent CLI against the local model replay: free, deterministic, evidence mode scripted."""
    return Profile(
        name=f"replay-{cli.name}",
        adapter=cli.name,
        model=cli.replay_model,
        live=False,
        evidence_mode="scripted",
        model_server="replay",
        agent_cli=cli.name,
        description=f"The real {cli.name} CLI, its MCP tools and the metering proxy, against the local model replay (free).",
    )


# One of each per registered agent CLI (harness.agents.registry): a new CLI's module brings its profiles.
REPLAY_PROFILES = tuple(replay_profile(cli) for cli in registered().values())
LIVE_PROFILES = tuple(live_profile(cli, live) for cli in registered().values() for live in cli.live_profiles)


def replay_profiles(clis: tuple[str, ...]) -> tuple[Profile, ...]:
    """The replay profiles of the agent CLIs a product runs against the replay."""
    return tuple(profile for profile in REPLAY_PROFILES if profile.agent_cli in clis)
