"""What vibe-kanban brings through the product door: its environment, what the driver can do, what it exposes.

vibe-kanban is a kanban board whose tasks coding agents carry out in git
worktrees: a task, its attempts (each a branch ``vk-<id>-...``), each
attempt's execution processes (the agent's runs), follow-up messages that
resume the agent's session, and Stop. It has no team of agents, no budgets,
no outside services: each capability it lacks says why.
"""

from __future__ import annotations

from harness.core.catalog import Environment, ProductDeclaration, ProductSuites
from harness.core.prompt_formats import PromptFormat

VIBE_KANBAN_LOCAL = Environment(
    name="vibe-kanban-local",
    product="vibe-kanban",
    fault_window_scale=5.0,
    shown_wait_s=30.0,
    scripted_deadline_scale=3.0,
    done_statuses=("in_review",),
    description="The real vibe-kanban (pinned npm release 0.0.71) on this machine; its Claude Code profile runs the"
    " scripted agent speaking Claude Code's stream-json, or the real Claude Code behind our metering proxy against"
    " the model replay.",
)

NO_TEAM = "vibe-kanban runs one coding agent per task attempt: no team, no delegation between agents"

PRODUCT = ProductDeclaration(
    name="vibe-kanban",
    title="vibe-kanban",
    driver="everyday_vibe_kanban.driver:DRIVER",
    environments=(VIBE_KANBAN_LOCAL,),
    suites=ProductSuites(scripted="everyday-workflows-vibe-kanban", replay="everyday-workflows-vibe-kanban-replay"),
    replay_clis=("claude",),  # the CLI its Claude Code profile runs; its other executors are not wired
    capabilities=("stop",),
    lacks={
        "delegation": NO_TEAM,
        "hiring": f"{NO_TEAM}; an agent is an executor profile, not a hire",
        "services": "vibe-kanban has no installed services, connections or approval cards",
        "providers": "vibe-kanban has no provider catalog or aggregator routing",
        "chat-connectors": "vibe-kanban has no chat connectors or email card",
        "connection-requests": "vibe-kanban has no connections an agent could ask for",
        "skills": "vibe-kanban has no skill library",
        "hire-approval": f"{NO_TEAM}: no hires, so no board approval of them",
        "agent-controls": f"{NO_TEAM}: no agent to pause, resume or terminate (an attempt is stopped, not its agent)",
        "routines": "vibe-kanban has no routines or triggers: a task attempt starts only when a person starts it",
        "budget-pause": "vibe-kanban meters no model spend and has no budgets: its agents use their own logins",
        "controller-restart": "vibe-kanban does not keep a run across a restart of its server: its agents are the"
        " server's children, and at start it marks every execution process left running as failed (its orphan"
        " clean-up), so the stories' premise (the same run goes on) is not something it offers",
        "graceful-drain": "vibe-kanban has no drain: a server stopped by SIGTERM leaves its runs to be marked failed"
        " at its next start, and nothing is retried",
    },
    # A follow-up message is the prompt of the execution process it starts: the product records which run it
    # handed the message to (message-wakes) and that run's own request carries it (message-read). It does not
    # report a run's process (runner-identity: the harness looks at the process table itself for Stop), nor
    # whether a stopped run's process group is gone (the harness's own look decides stop.process-group-gone),
    # nor why it started a run (run-cause); its logs show the tool steps of Claude Code's tools, not the
    # receipts of ours (receipts).
    observes=("message-read", "message-wakes"),
    # The scripted agent's read steps are tool uses in the run's logs that name the messages it received (the
    # follow-up's ``<session>:<n>``): vibe-kanban keeps them as it keeps any tool use. Claude Code's reads name none.
    observes_with={"scripted": ("receipts",)},
    derives={
        "unread-counter": "none counted: a follow-up is the prompt of the run it starts, handed over as it is sent",
        "active-run-pointer": "the first of the task's coding-agent processes vibe-kanban reports running",
    },
    # A task attempt's prompt is its title and description as the person typed them; a follow-up resumes the
    # session with the person's words as they are.
    prompts=PromptFormat(task=r"^Title: (?P<title>[^\n]*)\n\nDescription:\s*(?P<body>.*)", resumes_with_words=True),
)
