"""What the testbed brings through the product door: its environment, suites, capabilities and exposed facts.

The testbed is ours: it has every capability a story needs and exposes every
fact the checks are decided on that it records, and it declares no known
findings (a story failing on it is ours to fix).
"""

from __future__ import annotations

from harness.agents.registry import registered
from harness.core.catalog import (
    CONTAINER,
    LOCAL,
    MANUAL_SUITE,
    REPLAY_SUITE,
    SCRIPTED_SUITE,
    Environment,
    NoCell,
    ProductDeclaration,
    ProductSuites,
)
from harness.core.prompt_formats import PromptFormat
from harness.testbed.defects import REGISTRY as DEFECTS

from .promises import PROMISES

# The runner's briefing (harness/agents/instructions.py): "Your task #N: <title>", the request, then what follows it;
# a resumed session's new messages come as a list under "New messages from the user".
PROMPTS = PromptFormat(
    task=r"Your task #\d+: (?P<title>[^\n]*)\n\n(?P<body>.*?)(?:\n\n(?:Your teammates|You delivered|Conversation so far"
    r"|New messages|You work in))",
    new_messages=r"New messages from the user[^\n]*:\n(?P<messages>.*?)(?:\n\n(?:Act on them|You work in)|\Z)",
)

PRODUCT = ProductDeclaration(
    name="testbed",
    prompts=PROMPTS,
    title="the testbed",
    driver="harness.products.testbed:DRIVER",
    environments=(
        Environment(name=LOCAL, description="Runners are processes on this machine, spawned by the testbed."),
        Environment(
            name=CONTAINER,
            sandbox="container",
            only_cells=(
                "scripted.build-revise",
                "scripted.delegate-feedback",
                "scripted.recover-controller",
                "scripted.create-skill-studio",
                "scripted.stop-redirect",
                *(
                    f"replay-{cli}.{case}"
                    for cli in ("codex", "claude")
                    for case in ("build-revise", "delegate-feedback", "recover-controller", "create-skill-studio")
                ),
            ),
            only_why="the seed's remote set on the scripted agent and the two core agent CLIs (each CLI's metering"
            " proxy on the host, reached through one more socket), and Stop with the scripted agent",
            hides=("process-group-gone",),
            description="Each run's runner in its own container through the Docker engine DOCKER_HOST names: a lease"
            " for identity, the workspace in the sandbox, only the controller's agent socket for a network"
            " (testbed/sandbox).",
        ),
    ),
    suites=ProductSuites(scripted=SCRIPTED_SUITE, replay=REPLAY_SUITE, live=MANUAL_SUITE),
    replay_clis=tuple(registered()),  # its runners run every registered agent CLI
    capabilities=(
        "delegation",
        "controller-restart",
        "stop",
        "services",
        "connection-requests",
        "chat-connectors",
        "providers",
        "hiring",
        "skills",
        "hire-approval",
        "agent-controls",
        "routines",
        "budget-pause",
        "graceful-drain",
    ),
    promises=PROMISES,
    defects=tuple(DEFECTS),
    no_cell={
        "replay-*.budget-stop": NoCell(
            kind="not-yet",
            why="its runner's metering proxy refuses the first replay call priced above the story's 2-cent budget:"
            " a hard stop of the CLI before the testbed pauses the agent, not the pause the story needs",
        ),
    },
    observes=(
        "message-read",
        "runner-identity",
        "receipts",
        "process-group-gone",
        "run-cause",
        "task-skills",
        "unread-counter",
        "active-run-pointer",
    ),
)
