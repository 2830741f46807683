"""Selection rules: widen within a dimension, narrow across, paid cells only when named."""

from __future__ import annotations

from functools import partial

import pytest

from harness.core.catalog import MANUAL_SUITE, SCRIPTED_SUITE
from harness.running import selection
from harness.running.selection import SelectionError, parse_shard, shard_cells
from tests.built_in import built_in_catalog

BUILT_IN = built_in_catalog()
select = partial(selection.select, catalog=BUILT_IN)
resolve_short_id = partial(selection.resolve_short_id, catalog=BUILT_IN)

PAID_ID = "everyday-workflows.runner-codex.local.build-revise"
FREE_ID = "everyday-workflows-scripted.scripted.local.build-revise"
REPLAY_IDS = [f"everyday-workflows-replay.replay-{cli}.local.build-revise" for cli in ("claude", "codex", "opencode")]
REPLAY_CELLS = [c.execution_id for c in BUILT_IN.cells() if c.suite.name == "everyday-workflows-replay"]
PAPERCLIP_CELLS = [c.execution_id for c in BUILT_IN.cells() if c.environment.product == "paperclip"]
PAPERCLIP_ID = "everyday-workflows-paperclip.scripted.paperclip-local.{}"
CONTAINER_CELLS = [c.execution_id for c in BUILT_IN.cells() if c.environment.name == "container"]
CONTAINER_ID = "everyday-workflows-scripted.scripted.container.{}"
CONTAINER_REPLAY_ID = "everyday-workflows-replay.replay-{}.container.{}"


def suite_cells(name: str) -> list[str]:
    return [c.execution_id for c in BUILT_IN.cells() if c.suite.name == name]


# Counts come from the catalog's suites, so a new case or profile needs no edit here; the rules are what is tested.
PAPERCLIP_REPLAY_CELLS = suite_cells("everyday-workflows-paperclip-replay")
# The manual suite's cases the testbed has what they need for.
MANUAL_CASES = [
    case.name
    for suite in BUILT_IN.suites
    if suite.name == MANUAL_SUITE
    for case in suite.cases
    if suite.why_not(suite.profiles[0], case) is None
]


def ids(**selectors) -> list[str]:
    return [cell.execution_id for cell in select(**selectors)]


def test_all_selects_every_free_cell_and_no_paid_one() -> None:
    cells = select(all=True)
    assert [cell.execution_id for cell in cells] == [c.execution_id for c in BUILT_IN.cells() if not c.manual]
    assert not any(cell.paid or cell.manual for cell in cells)
    assert sorted(PAPERCLIP_CELLS) == [c.execution_id for c in cells if c.environment.name == "paperclip-local"]


def test_naming_the_manual_suite_selects_its_paid_cells() -> None:
    cells = select(suites=["everyday-workflows"])
    assert [cell.execution_id for cell in cells] == suite_cells(MANUAL_SUITE) and all(cell.paid for cell in cells)
    # the three paid profiles on every case of the suite; runner-opencode only on its own cases
    for profile in ("runner-codex", "runner-claude", "runner-codex-mini"):
        assert [cell.case.name for cell in cells if cell.profile.name == profile] == sorted(MANUAL_CASES)
    opencode = [cell for cell in cells if cell.profile.name == "runner-opencode"]
    assert opencode and all(cell.case.name in cell.profile.only_cases for cell in opencode)
    assert PAID_ID in [cell.execution_id for cell in cells]


@pytest.mark.parametrize("profile", ["runner-codex", "runner-claude", "runner-codex-mini"])
def test_paid_profile_alone_is_an_error_that_says_how_to_select_it(profile: str) -> None:
    with pytest.raises(SelectionError, match="--suite everyday-workflows or pass an exact --id"):
        select(profiles=[profile])


def test_group_selectors_never_pull_in_paid_cells() -> None:
    assert ids(environments=["local"]) == [
        cell for cell in ids(all=True) if cell not in PAPERCLIP_CELLS and cell not in CONTAINER_CELLS
    ]
    assert ids(environments=["paperclip-local"]) == sorted(PAPERCLIP_CELLS)
    remote_set = ("build-revise", "create-skill-studio", "delegate-feedback", "recover-controller", "stop-redirect")
    replayed = [CONTAINER_REPLAY_ID.format(cli, case) for cli in ("claude", "codex") for case in remote_set[:4]]
    assert ids(environments=["container"]) == CONTAINER_CELLS
    assert CONTAINER_CELLS == sorted([*replayed, *(CONTAINER_ID.format(case) for case in remote_set)])
    assert ids(cases=["build-revise"]) == sorted(
        [
            *[cell for cell in PAPERCLIP_REPLAY_CELLS if cell.endswith(".build-revise")],
            PAPERCLIP_ID.format("build-revise"),
            *REPLAY_IDS,
            *(CONTAINER_REPLAY_ID.format(cli, "build-revise") for cli in ("claude", "codex")),
            CONTAINER_ID.format("build-revise"),
            FREE_ID,
        ]
    )
    scripted = [cell for cell in ids(all=True) if cell not in [*REPLAY_CELLS, *PAPERCLIP_REPLAY_CELLS]]
    assert ids(profiles=["scripted", "runner-codex"]) == scripted
    assert ids(all=True, profiles=["runner-claude", "scripted"]) == scripted


def test_exact_id_selects_a_paid_cell() -> None:
    assert ids(ids=[PAID_ID]) == [PAID_ID]


def test_repeating_a_dimension_widens_it() -> None:
    replay_stop = [
        f"everyday-workflows-replay.replay-{cli}.local.stop-redirect" for cli in ("claude", "codex", "opencode")
    ]
    assert ids(cases=["build-revise", "stop-redirect"]) == sorted(
        [
            *REPLAY_IDS,
            *replay_stop,
            FREE_ID,
            CONTAINER_ID.format("build-revise"),
            *(CONTAINER_REPLAY_ID.format(cli, "build-revise") for cli in ("claude", "codex")),
            "everyday-workflows-scripted.scripted.local.stop-redirect",
            CONTAINER_ID.format("stop-redirect"),
            PAPERCLIP_ID.format("build-revise"),
            PAPERCLIP_ID.format("stop-redirect"),
            *[cell for cell in PAPERCLIP_REPLAY_CELLS if cell.endswith((".build-revise", ".stop-redirect"))],
        ]
    )
    both = ids(suites=["everyday-workflows", "everyday-workflows-scripted"])
    assert both == sorted(suite_cells(MANUAL_SUITE) + suite_cells(SCRIPTED_SUITE))
    assert ids(ids=[PAID_ID, "build-revise", PAID_ID]) == [FREE_ID, PAID_ID]  # sorted, deduplicated


def test_different_dimensions_narrow() -> None:
    assert ids(suites=["everyday-workflows"], profiles=["runner-claude"], cases=["build-revise"]) == [
        "everyday-workflows.runner-claude.local.build-revise"
    ]
    assert len(ids(suites=["everyday-workflows"], profiles=["runner-codex", "runner-codex-mini"])) == 2 * len(
        MANUAL_CASES
    )


def test_selectors_that_match_nothing_are_an_error() -> None:
    with pytest.raises(SelectionError, match="no cell matches --suite everyday-workflows --profile scripted"):
        select(suites=["everyday-workflows"], profiles=["scripted"])


def test_no_selector_is_an_error() -> None:
    with pytest.raises(SelectionError, match="pass --all"):
        select()


@pytest.mark.parametrize(
    "selectors",
    [{"all": True}, {"suites": ["everyday-workflows"]}, {"profiles": ["scripted"]}, {"cases": ["build-revise"]}],
)
def test_id_stands_alone(selectors: dict) -> None:
    with pytest.raises(SelectionError, match="--id stands alone"):
        select(ids=["build-revise"], **selectors)


@pytest.mark.parametrize(
    ("selectors", "listed"),
    [
        (
            {"suites": ["nope"]},
            "valid suites: everyday-workflows, everyday-workflows-paperclip, everyday-workflows-paperclip-replay,"
            " everyday-workflows-replay, everyday-workflows-scripted",
        ),
        (
            {"profiles": ["nope"]},
            "valid profiles: replay-claude, replay-codex, replay-opencode, runner-claude, runner-codex, runner-codex-mini, runner-opencode, scripted",
        ),
        ({"environments": ["cloud"]}, "valid environments: container, local, paperclip-local"),
        (
            {"cases": ["nope"]},
            "valid cases: agent-controls, agentmail-setup, budget-stop, build-revise, connection-decline, create-skill-studio,"
            " delegate-feedback, hire-approval, hire-rejected, hire-reuse, "
            "late-feedback, provider-decline, provider-native, provider-second, recover-controller, recover-controller-drain, "
            "recover-controller-sigkill, routine-run, service-approve, service-decline, stop-redirect",
        ),
        (
            {"ids": ["nope"]},
            "a short id is a case (agent-controls, agentmail-setup, budget-stop, build-revise, connection-decline, "
            "create-skill-studio, delegate-feedback, hire-approval, hire-rejected, hire-reuse, "
            "late-feedback, provider-decline, provider-native, provider-second, recover-controller, recover-controller-drain, "
            "recover-controller-sigkill, routine-run, service-approve, service-decline, stop-redirect); "
            "`harness list --all` shows every full execution id",
        ),
        ({"ids": ["build-revize"]}, "did you mean build-revise?"),
    ],
)
def test_unknown_values_list_the_valid_ones_on_one_line(selectors: dict, listed: str) -> None:
    with pytest.raises(SelectionError, match="unknown") as raised:
        select(**selectors)
    assert listed in str(raised.value) and "\n" not in str(raised.value)


def test_short_id_is_the_scripted_local_cell_and_full_id_is_exact() -> None:
    assert resolve_short_id("build-revise").execution_id == FREE_ID
    assert resolve_short_id(PAID_ID).execution_id == PAID_ID
    with pytest.raises(SelectionError):
        resolve_short_id("local.build-revise")


@pytest.mark.parametrize("count", [1, 2, 3, 5, 16, 20])
def test_shards_partition_the_selection(count: int) -> None:
    both = ["everyday-workflows", "everyday-workflows-scripted"]
    selection = ids(suites=both)
    shards = [ids(suites=both, shard=f"{i}/{count}") for i in range(1, count + 1)]
    flat = [execution_id for shard in shards for execution_id in shard]
    assert sorted(flat) == selection  # union is the selection and no cell is in two shards
    assert max(map(len, shards)) - min(map(len, shards)) <= 1


def test_shard_does_not_depend_on_input_order() -> None:
    cells = select(suites=["everyday-workflows"])
    assert (
        shard_cells(list(reversed(cells)), "2/3")
        == shard_cells(cells, "2/3")
        == select(suites=["everyday-workflows"], shard="2/3")
    )


@pytest.mark.parametrize("text", ["", "1", "0/2", "3/2", "a/b", "1/0", "-1/2", "1/2/3", "1 of 2"])
def test_malformed_shard_is_a_selection_error(text: str) -> None:
    with pytest.raises(SelectionError, match="malformed shard"):
        parse_shard(text)
    with pytest.raises(SelectionError, match="malformed shard"):
        select(all=True, shard=text)


def test_order_is_sorted_by_execution_id() -> None:
    cells = select(suites=["everyday-workflows"])
    assert [c.execution_id for c in cells] == sorted(
        c.execution_id for c in BUILT_IN.cells() if c.suite.name == "everyday-workflows"
    )


def test_choosing_cells_leaves_the_mcp_sdk_unloaded() -> None:
    """Every `harness` command chooses cells, which imports every story; a fixture's MCP SDK (over a CPU-second to
    import) loads only when the fixture starts, in the cells that use one."""
    import subprocess
    import sys

    code = "import sys; from harness.running.selection import select; select(all=True); print(sorted(m for m in sys.modules if m.split('.')[0] == 'mcp'))"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "[]", shown
