"""`harness judge` refuses what it cannot do in one line (exit 2), before writing anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from tests.judges.packages import CAMPAIGN, decline_package


@pytest.mark.parametrize(
    "arguments",
    [
        ["--judge", "nobody"],
        ["--judge", "model"],
        ["--judge", "model", "--judge-endpoint", "http://127.0.0.1:9"],
    ],
)
def test_refused_before_any_judgement(tmp_path: Path, arguments: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ENDPOINT", "MODEL"):
        monkeypatch.delenv(f"EVERYDAY_JUDGE_{name}", raising=False)
    package = decline_package(tmp_path, "text")
    assert main(["judge", CAMPAIGN, "--results", str(tmp_path), *arguments]) == 2
    assert not (package / "judgements").exists()


def test_an_unknown_campaign_is_refused(tmp_path: Path) -> None:
    assert main(["judge", "no-such-campaign", "--results", str(tmp_path), "--judge", "rules"]) == 2


def test_the_rules_judge_a_campaign_and_print_what_it_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = decline_package(tmp_path, "You declined, so I wasn't able to do it.")
    assert main(["judge", CAMPAIGN, "--results", str(tmp_path), "--judge", "rules"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 judgement(s): 1 passed; 0 model call(s)")
    assert (package / "judgements" / "rules" / "explanation-after-decline" / "0001.json").is_file()


def test_regrade_with_a_judge_judges_the_same_packages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = decline_package(tmp_path, "You declined, so I wasn't able to do it.")
    main(["regrade", str(package), "--judge", "rules"])
    assert "1 judgement(s): 1 passed" in capsys.readouterr().out
    assert (package / "judgements" / "rules" / "explanation-after-decline" / "0001.json").is_file()
    assert main(["regrade", str(package), "--judge", "nobody"]) == 2
