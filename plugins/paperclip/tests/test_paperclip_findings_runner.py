"""`make findings`: its table and exit status, from reproductions that exit as the real ones do (1, 0, 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from everyday_paperclip import install
from everyday_paperclip.declaration import PRODUCT
from everyday_paperclip.findings import isolated_paperclip
from everyday_paperclip.findings.runner import FINDINGS_DIR, explained, reproductions, run_all
from harness.core.catalog import KnownFinding
from harness.core.signatures import FailureSignature


def fake(root: Path, name: str, status: int, body: str = "") -> None:
    (root / name).mkdir()
    (root / name / "reproduce.py").write_text(f"import sys, time\nprint('fake {name}')\n{body}\nsys.exit({status})\n")


def test_every_reproduction_shown_exits_0_with_a_table_naming_what_each_explains(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    fake(tmp_path, "signal_succeeds", 1)
    fake(tmp_path, "reaper", 1)
    assert run_all(tmp_path, {"reaper": "recover-controller-sigkill: restart.same-run"}) == 0
    out = capfd.readouterr().out
    assert "fake reaper" in out and "fake signal_succeeds" in out  # each reproduction's own account
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith(("reaper", "signal_succeeds"))}
    assert "recover-controller-sigkill: restart.same-run" in rows["reaper"] and "reproduced" in rows["reaper"]
    assert "(no known finding names it)" in rows["signal_succeeds"]
    assert "ERROR" not in out and "NO LONGER" not in out


def test_a_finding_that_no_longer_reproduces_fails_loudly_saying_its_declaration_must_go(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    fake(tmp_path, "fixed", 0)
    fake(tmp_path, "still_there", 1)
    assert run_all(tmp_path, {"fixed": "stop-redirect: stop.nothing-ran-after-stop"}) == 1
    out = capfd.readouterr().out
    assert "not reproduced" in out
    loud = [line for line in out.splitlines() if line.startswith("FINDING NO LONGER REPRODUCES")]
    assert len(loud) == 1 and "fixed" in loud[0] and "stop-redirect" in loud[0] and "must go" in loud[0]


@pytest.mark.parametrize("status", [2, 3])
def test_a_reproduction_that_cannot_run_is_an_error_never_not_reproduced(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], status: int
) -> None:
    fake(tmp_path, "no_paperclip", status)
    fake(tmp_path, "fixed", 0)
    assert run_all(tmp_path, {}) == 2
    out = capfd.readouterr().out
    assert "could not run" in out and "ERROR: no_paperclip could not run" in out


def test_a_reproduction_with_no_verdict_in_time_could_not_run(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    fake(tmp_path, "hangs", 1, body="time.sleep(60)")
    assert run_all(tmp_path, {}, timeout=1) == 2
    assert "ERROR: hangs could not run" in capfd.readouterr().out


def test_a_declared_reproduction_without_its_folder_is_an_error(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    fake(tmp_path, "present", 1)
    assert run_all(tmp_path, {"present": "a", "gone": "b"}) == 2
    assert "names reproduction 'gone', which has no reproduce.py" in capfd.readouterr().out


def test_explains_lists_each_known_finding_naming_the_folder() -> None:
    findings = [
        KnownFinding(
            case="recover-controller",
            checks=("lifecycle.runs-succeeded",),
            signatures=(FailureSignature(check="lifecycle.runs-succeeded", pattern="ended failed"),),
            what="w",
            reproduction="null_exit",
        ),
        KnownFinding(
            case="stop-redirect",
            checks=("stop.a", "stop.b"),
            signatures=(FailureSignature(check="stop.a", pattern="a"), FailureSignature(check="stop.b", pattern="b")),
            what="w",
            reproduction="null_exit",
        ),
        KnownFinding(
            case="recover-controller-sigkill",
            checks=("restart.same-run",),
            signatures=(FailureSignature(check="restart.same-run", pattern="failed"),),
            what="w",
            reproduction="reaper",
        ),
    ]
    assert explained(findings) == {
        "null_exit": "recover-controller: lifecycle.runs-succeeded; stop-redirect: stop.a, stop.b",
        "reaper": "recover-controller-sigkill: restart.same-run",
    }


def test_every_paperclip_known_finding_has_its_reproduction_and_bug_report_pinned_as_the_harness_installs() -> None:
    declared = {finding.reproduction for finding in PRODUCT.known_findings}
    folders = {p.name: p for p in reproductions(FINDINGS_DIR)}
    assert declared and declared <= set(folders), f"declared without a folder: {sorted(declared - set(folders))}"
    assert all((folders[name] / "REPORT.md").is_file() for name in declared)
    assert isolated_paperclip.PINNED_VERSION == install.PINNED_VERSION


def test_a_real_reproduction_without_paperclip_exits_2_with_one_line(tmp_path: Path) -> None:
    script = FINDINGS_DIR / "null_exit_code_succeeds" / "reproduce.py"
    done = subprocess.run(
        [sys.executable, str(script)],
        env={"PATH": "/usr/bin:/bin", "PAPERCLIP_INSTALL": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "COULD NOT RUN: needs paperclipai" in done.stdout and "it is not installed" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
