"""The catalog's facts: which cells exist, what they cost, and when a live cell must be skipped."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.core import registry
from harness.core.catalog import (
    DELEGATION_HARD_STOP_CENTS,
    MANUAL_SUITE,
    SCRIPTED_SUITE,
    Cell,
    Profile,
    Suite,
    suite_definition_hash,
)
from harness.core.cli_probe import live_cell_unavailable_reason
from harness.core.profiles import SCRIPTED

CASES = [
    "build-revise",
    "delegate-feedback",
    "late-feedback",
    "recover-controller",
    "recover-controller-sigkill",
    "stop-redirect",
    "service-approve",
    "service-decline",
]
# On the testbed (its driver wires decisions on connections and email, provider questions, the hire form
# the skill library, routines and budget pauses): paid, scripted and replay. The provider cases have no replay script,
# and budget-stop no testbed replay cell yet. Those of them Paperclip's driver also serves are in PAPERCLIP_TOO.
TESTBED_CASES = [
    "connection-decline",
    "agentmail-setup",
    "provider-native",
    "provider-decline",
    "provider-second",
    "hire-reuse",
    "create-skill-studio",
    "routine-run",
    "budget-stop",
]
# On both products, scripted (and paid on the testbed) and replay: the company's own everyday features, whose
# stories judge the product's controls rather than a model.
TEAM_CASES = ["hire-approval", "hire-rejected", "agent-controls"]
# Of TESTBED_CASES, those Paperclip serves as well, with its cells there: scripted and its 2 replay profiles.
# budget-stop there has no replay-codex cell (codex_local reports no cost: see its reason).
PAPERCLIP_TOO = {"routine-run": 3, "budget-stop": 2, "hire-reuse": 3, "create-skill-studio": 3}


def cell(execution_id: str) -> Cell:
    return next(c for c in registry.catalog().cells() if c.execution_id == execution_id)


def suite(name: str) -> Suite:
    return next(s for s in registry.catalog().suites if s.name == name)


def built_in(c: Cell) -> bool:
    """A cell of this project's own stories and products (an installed plug-in adds its own)."""
    return c.case.story.startswith("stories.") and c.environment.product in ("testbed", "paperclip")


def test_every_cell_has_a_four_part_execution_id_and_cells_are_sorted() -> None:
    all_ids = [c.execution_id for c in registry.catalog().cells()]
    assert all_ids == sorted(all_ids)
    ids = [c.execution_id for c in registry.catalog().cells() if built_in(c)]
    # The testbed: 3 paid profiles + scripted on every case, runner-opencode on delegation and hiring only, 3 replay
    # profiles on the 17 cases the replay scripts but budget-stop (not wired yet); Paperclip: scripted on the 8 cases
    # its driver can serve (the drain in place of the hot restart, which it promises only for its sessioned
    # adapters), its 2 replay profiles on 7 of them (not the SIGKILL restart, a crash it promises them nothing for),
    # on the hot restart (recover-controller) and on the 3 team cases; the testbed's container environment: the
    # seed's remote set of 4 cases on scripted and the 2 core replay profiles, and Stop, scripted.
    replayed = [
        c for c in registry.cases() if c.replay and c.story.startswith("stories.") and "graceful-drain" not in c.needs
    ]
    assert len(replayed) == 17
    team = 4 * len(TEAM_CASES) + len(TEAM_CASES)  # the testbed's scripted and paid cells, Paperclip's scripted
    containers = 5 + 2 * 4  # the container environment's scripted cells, and its replay-codex and replay-claude
    drain = 4 + 3  # the testbed drains on its operator's request: scripted, the 3 paid and the 3 replay profiles
    expected = (
        (4 * len(CASES + TESTBED_CASES) + 2 + 3 * (len(replayed) - 1) + 8 + 2 * 11 + team + sum(PAPERCLIP_TOO.values()))
        + containers
        + drain
    )
    assert len(ids) == len(set(ids)) == expected
    for c in registry.catalog().cells():
        assert c.execution_id.split(".") == [c.suite.name, c.profile.name, c.environment.name, c.case.name]


def test_manual_suite_holds_only_paid_live_cells() -> None:
    manual = suite(MANUAL_SUITE)
    assert manual.manual_only
    assert [p.name for p in manual.profiles] == [  # by CLI name, each CLI's in the order its entry declares them
        "runner-claude",
        "runner-codex",
        "runner-codex-mini",
        "runner-opencode",
    ]
    for c in registry.catalog().cells():
        assert c.paid == (c.suite.name == MANUAL_SUITE) and c.manual == c.suite.manual_only
        assert c.manual or not c.paid  # a paid cell never runs unless named
        assert c.evidence_mode == ("live" if c.paid else "scripted")


def test_scripted_suite_is_free_and_covers_the_same_cases() -> None:
    scripted = suite(SCRIPTED_SUITE)
    assert not scripted.manual_only
    assert scripted.profiles == (SCRIPTED,)
    assert (SCRIPTED.adapter, SCRIPTED.model) == ("scripted", "default")
    assert {c.name for c in scripted.cases} >= set(CASES + TESTBED_CASES + TEAM_CASES)
    assert suite(MANUAL_SUITE).cases == scripted.cases
    built_ins = [c for c in scripted.cases if c.name in CASES + TESTBED_CASES + TEAM_CASES]
    assert [c.story for c in built_ins] == [f"stories.{c.name.replace('-', '_')}" for c in built_ins]


def test_deadlines_and_run_record_bound() -> None:
    live = cell("everyday-workflows.runner-claude.local.build-revise")
    free = cell("everyday-workflows-scripted.scripted.local.build-revise")
    assert live.deadline_s == 12 * 60
    assert free.deadline_s < live.deadline_s
    assert live.case.max_run_records is free.case.max_run_records is None  # the bound its script asks for
    provider = cell("everyday-workflows.runner-codex.local.provider-second")
    assert provider.deadline_s == 12 * 60 and provider.case.max_run_records == 2  # the question, then the answer
    on_paperclip = cell("everyday-workflows-paperclip.scripted.paperclip-local.delegate-feedback")
    on_testbed = cell("everyday-workflows-scripted.scripted.local.delegate-feedback")
    assert on_paperclip.deadline_s == 3 * on_testbed.deadline_s  # its slower agent's fault window
    replay_on_paperclip = cell("everyday-workflows-paperclip-replay.replay-claude.paperclip-local.build-revise")
    replay_on_testbed = cell("everyday-workflows-replay.replay-claude.local.build-revise")
    assert replay_on_paperclip.deadline_s == 3 * replay_on_testbed.deadline_s == 3 * 5 * 60  # the replay paces x15


def test_suite_hash_is_stable_and_covers_member_definitions() -> None:
    scripted = suite(SCRIPTED_SUITE)
    first = suite_definition_hash(scripted)
    assert first == suite_definition_hash(Suite.model_validate(scripted.model_dump()))
    assert len(first) == 64 and first != suite_definition_hash(suite(MANUAL_SUITE))
    slower = scripted.model_copy(
        update={"cases": (scripted.cases[0].model_copy(update={"scripted_deadline_s": 999}), *scripted.cases[1:])}
    )
    assert suite_definition_hash(slower) != first


def test_live_cell_without_credentials_or_binary_has_a_skip_reason() -> None:
    codex = cell("everyday-workflows.runner-codex.local.build-revise")
    reason = live_cell_unavailable_reason(codex, env={}, which=lambda name: None)
    assert reason is not None
    assert "OPENAI_API_KEY" in reason and "'codex'" in reason


def test_skip_reason_names_only_what_is_missing_and_never_a_value() -> None:
    claude = cell("everyday-workflows.runner-claude.local.stop-redirect")
    found = lambda name: f"/usr/bin/{name}"  # noqa: E731
    reason = live_cell_unavailable_reason(claude, env={"OPENAI_API_KEY": "sk-secret"}, which=found)
    assert reason is not None and "ANTHROPIC_API_KEY" in reason and "binary" not in reason
    assert "sk-secret" not in reason
    assert live_cell_unavailable_reason(claude, env={"ANTHROPIC_API_KEY": "x"}, which=lambda name: None) is not None
    assert live_cell_unavailable_reason(claude, env={"ANTHROPIC_API_KEY": ""}, which=found) is not None


def test_runnable_live_cell_and_scripted_cell_have_no_skip_reason() -> None:
    mini = cell("everyday-workflows.runner-codex-mini.local.build-revise")
    assert live_cell_unavailable_reason(mini, env={"OPENAI_API_KEY": "k"}, which=lambda n: f"/bin/{n}") is None
    free = cell("everyday-workflows-scripted.scripted.local.build-revise")
    assert live_cell_unavailable_reason(free, env={}, which=lambda name: None) is None


def test_definitions_reject_contradictions() -> None:
    with pytest.raises(ValidationError):
        Profile(name="x", adapter="a", model="m", live=True, evidence_mode="scripted")
    with pytest.raises(ValidationError):  # dots would break execution ids
        Profile(name="a.b", adapter="a", model="m", live=False, evidence_mode="scripted")
    manual = suite(MANUAL_SUITE)
    with pytest.raises(ValidationError, match="not manual-only"):
        Suite.model_validate({**manual.model_dump(), "manual_only": False})


def test_runner_opencode_only_makes_delegation_cells_and_replay_cells_are_free_and_scripted() -> None:
    opencode = [c.case.name for c in registry.catalog().cells() if c.profile.name == "runner-opencode"]
    assert opencode == ["delegate-feedback", "hire-reuse"]
    replay = [c for c in registry.catalog().cells() if c.profile.name.startswith("replay-")]
    assert {c.profile.name for c in replay} == {"replay-codex", "replay-claude", "replay-opencode"}
    assert all(
        not c.paid and not c.manual and c.evidence_mode == "scripted" and c.profile.model_server == "replay"
        for c in replay
    )


def test_a_live_cell_without_its_agent_cli_names_make_agents() -> None:
    reason = live_cell_unavailable_reason(
        cell("everyday-workflows.runner-claude.local.build-revise"),
        env={"ANTHROPIC_API_KEY": "k"},
        which=lambda name: None,
    )
    assert reason is not None and "make agents" in reason and "claude" in reason


def test_delegation_cells_that_call_a_model_get_the_seed_suites_hard_stop_and_one_attempt() -> None:
    for profile in ("runner-codex", "runner-claude", "runner-codex-mini", "runner-opencode"):
        delegation = cell(f"{MANUAL_SUITE}.{profile}.local.delegate-feedback")
        assert delegation.hard_stop_cents() == DELEGATION_HARD_STOP_CENTS == 1_000
        assert delegation.automatic_retries(1) == 0
    assert cell("everyday-workflows-replay.replay-codex.local.delegate-feedback").hard_stop_cents() == 1_000
    # The scripted agent spends nothing: its product keeps its own budgets; other cases keep theirs too.
    assert cell(f"{SCRIPTED_SUITE}.scripted.local.delegate-feedback").hard_stop_cents() is None
    build = cell(f"{MANUAL_SUITE}.runner-codex.local.build-revise")
    assert build.hard_stop_cents() is None and build.automatic_retries(1) == 1
    # The run's setting wins over the case's default, in both directions.
    assert cell(f"{MANUAL_SUITE}.runner-codex.local.delegate-feedback").hard_stop_cents(50) == 50
    assert build.hard_stop_cents(50) == 50
