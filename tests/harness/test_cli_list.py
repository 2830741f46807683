"""`harness list`: one execution id per line on stdout, `harness: <message>` and exit 2 on errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import build_parser, main, selection_kwargs
from harness.core import registry
from harness.core.catalog import MANUAL_SUITE
from harness.running.selection import select

PAID_ID = "everyday-workflows.runner-codex.local.build-revise"
FREE_CELLS = [cell.execution_id for cell in registry.catalog().cells() if not cell.manual]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = main(["list", *argv])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def test_list_all_prints_only_free_cells(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, err = run(capsys, "--all")
    assert status == 0 and err == ""
    assert lines == FREE_CELLS and not any(line.startswith(f"{MANUAL_SUITE}.") for line in lines)
    assert "everyday-workflows-scripted.scripted.local.build-revise" in lines


def test_list_manual_suite_prints_paid_cells(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "--suite", "everyday-workflows")
    manual = [cell.execution_id for cell in registry.catalog().cells() if cell.suite.name == MANUAL_SUITE]
    assert status == 0 and lines == manual and PAID_ID in lines
    assert all(line.startswith("everyday-workflows.runner-") for line in lines)


def test_paid_profile_alone_explains_how_to_select_it(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, err = run(capsys, "--profile", "runner-codex")
    assert status == 2 and lines == []
    assert err.startswith("harness: ") and "--suite everyday-workflows" in err and "--id" in err


def test_exact_id_and_short_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--id", PAID_ID)[:2] == (0, [PAID_ID])
    assert run(capsys, "--id", "build-revise")[:2] == (0, ["everyday-workflows-scripted.scripted.local.build-revise"])


def test_repeat_widens_and_dimensions_narrow(capsys: pytest.CaptureFixture[str]) -> None:
    _, widened, _ = run(capsys, "--case", "build-revise", "--case", "stop-redirect")
    assert widened == [c for c in FREE_CELLS if c.endswith((".build-revise", ".stop-redirect"))]
    _, narrowed, _ = run(
        capsys, "--suite", "everyday-workflows", "--profile", "runner-claude", "--case", "build-revise"
    )
    assert narrowed == ["everyday-workflows.runner-claude.local.build-revise"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((), "harness: nothing selected; pass --all"),
        (
            ("--case", "nope"),
            "harness: unknown case 'nope'; valid cases: agent-controls, agentmail-setup, budget-stop, build-",
        ),
        (("--id", "build-revise", "--all"), "harness: --id stands alone"),
        (("--all", "--shard", "3/2"), "harness: malformed shard '3/2'"),
    ],
)
def test_errors_go_to_stderr_with_exit_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    status, lines, err = run(capsys, *argv)
    assert status == 2 and lines == []
    assert err.startswith(message) and err.count("\n") == 1


def test_shards_on_the_command_line_partition(capsys: pytest.CaptureFixture[str]) -> None:
    _, whole, _ = run(capsys, "--suite", "everyday-workflows")
    parts = [run(capsys, "--suite", "everyday-workflows", "--shard", f"{i}/5")[1] for i in range(1, 6)]
    assert sorted(line for part in parts for line in part) == whole


def test_every_selector_flag_maps_to_a_select_argument() -> None:
    args = build_parser().parse_args(
        [
            "list",
            "--all",
            "--suite",
            "s",
            "--profile",
            "p",
            "--environment",
            "e",
            "--case",
            "c",
            "--id",
            "i",
            "--shard",
            "1/2",
        ]
    )
    kwargs = selection_kwargs(args)
    assert kwargs == {
        "all": True,
        "suites": ("s",),
        "profiles": ("p",),
        "environments": ("e",),
        "cases": ("c",),
        "ids": ("i",),
        "shard": "1/2",
    }
    assert set(kwargs) <= set(select.__code__.co_varnames[: select.__code__.co_argcount])


def test_no_subcommand_prints_usage_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "list" in capsys.readouterr().err


def test_console_script_runs_in_a_subprocess() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", "list", "--suite", "everyday-workflows", "--case", "build-revise"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "everyday-workflows.runner-claude.local.build-revise",
        "everyday-workflows.runner-codex-mini.local.build-revise",
        "everyday-workflows.runner-codex.local.build-revise",
    ]
    failed = subprocess.run([sys.executable, "-m", "harness.cli", "list"], capture_output=True, text=True, timeout=60)
    assert failed.returncode == 2 and failed.stderr.startswith("harness: ")


def test_installed_entry_point_is_harness_cli_main() -> None:
    script = Path(sys.executable).parent / "harness"
    assert script.exists(), "the console script is missing: `make venv` installs it with the project"
    done = subprocess.run([str(script), "list", "--all"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == FREE_CELLS


def test_not_applicable_says_why_paperclip_has_no_replay_codex_cell_for_budget_stop(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, lines, _ = run(capsys, "--environment", "paperclip-local", "--profile", "replay-codex", "--not-applicable")
    reasons = dict(line.split("  not applicable: ", 1) for line in lines)
    reason = reasons["everyday-workflows-paperclip-replay.replay-codex.paperclip-local.budget-stop"]
    assert status == 0 and reason.startswith("Paperclip does not promise it: ") and "codex_local" in reason
    for case in ("agent-controls", "hire-approval", "hire-rejected"):
        assert f"everyday-workflows-paperclip-replay.replay-codex.paperclip-local.{case}" not in reasons
