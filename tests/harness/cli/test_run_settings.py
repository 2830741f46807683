"""`harness run` builds one validated RunSettings and hands it to pytest whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import build_parser, main, run_settings
from harness.core.settings import SETTINGS_OPTION, RunSettings
from harness.running.campaign import PLUGIN, pytest_arguments
from tests.command_line import ended, never_starts


@pytest.mark.parametrize(
    ("flags", "refused"),
    [
        (["--pace", "-1"], "--pace"),
        (["--pace", "0"], "--pace"),
        (["--deadline", "0"], "--deadline"),
        (["--deadline", "soon"], "--deadline"),
        (["--max-parallel", "0"], "--max-parallel"),
        (["--max-automatic-retries", "2"], "--max-automatic-retries"),
        (["--campaign", ""], "--campaign"),
    ],
)
def test_a_bad_value_is_one_line_and_exit_2_before_anything_runs(
    tmp_path: Path,
    flags: list[str],
    refused: str,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """In this process (`python -m harness.cli` is proven to end as ``main`` does in test_cli_bad_input.py)."""
    never_starts(monkeypatch, "harness.running.campaign.run_cells")
    done = ended(main, ["run", "--id", "build-revise", "--results", str(tmp_path), *flags], capfd)
    assert done.status == 2
    assert done.err.startswith(f"harness: {refused} ") and done.err.count("\n") == 1, done.err
    assert "Traceback" not in done.err and done.out == ""
    assert not any(tmp_path.iterdir()), "a refused run must not start"


def test_the_command_line_becomes_one_settings_object_and_pytest_gets_it_whole() -> None:
    command = ["run", "--id", "build-revise", "--id", "stop-redirect", "--max-parallel", "3"]
    args = build_parser().parse_args([*command, "--pace", "0.5", "--campaign", "c", "--headed"])
    settings = run_settings(args)
    assert settings.cells == (
        "everyday-workflows-scripted.scripted.local.build-revise",
        "everyday-workflows-scripted.scripted.local.stop-redirect",
    )
    assert (settings.max_parallel, settings.pace_s, settings.campaign, settings.headed) == (3, 0.5, "c", True)

    argv = pytest_arguments(settings, ["-x"])
    assert argv[argv.index("-p") + 1] == PLUGIN, "workers load the plugin only from the command line"
    assert RunSettings.model_validate_json(argv[argv.index(SETTINGS_OPTION) + 1]) == settings
    assert argv[argv.index("-n") + 1] == "2", "never more workers than cells"
    assert "--headed" in argv and argv[-1] == "-x"


def test_the_campaign_id_is_drawn_once_where_the_settings_are_built() -> None:
    settings = RunSettings(cells=("a",))
    assert RunSettings.model_validate_json(settings.model_dump_json()).campaign == settings.campaign


def test_calibration_settings_mark_an_attempt_diagnostic_and_normal_runs_carry_no_mark() -> None:
    assert RunSettings(cells=("c",)).calibration_marks() == {}
    marked = RunSettings(cells=("c",), scripted_persona="forgets-nonce", product_defect="download-other-bytes")
    assert marked.calibration_marks() == {"scripted_persona": "forgets-nonce", "product_defect": "download-other-bytes"}
