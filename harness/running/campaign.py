"""`harness run`: select cells, run them as pytest items, summarise the verdicts.

pytest does the running (selection by -k, -x, junit XML, xdist workers); this
module only builds its command line and reads the attempt records back to
print one screen a person can act on.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from harness.core.catalog import Cell, KnownFinding
from harness.core.outcomes import is_known_finding, unexpected
from harness.core.records import AttemptRecord
from harness.core.settings import SETTINGS_OPTION, RunSettings
from harness.results.packages import LoadedAttempt, campaign_package_folders, catalog_cells, read_package
from harness.results.summary import summarize_campaign
from harness.running.ownership import claim_run_folder, release_run_folder, remove_dead_owners

# Named, not imported: pytest imports the plugin itself (`-p`), so it can rewrite its asserts,
# and each xdist worker does the same from the command line it is given.
PLUGIN = "harness.running.plugin"
STORY_CELLS_MODULE = Path(__file__).with_name("story_cells.py")


def pytest_arguments(settings: RunSettings, extra: Sequence[str] = ()) -> list[str]:
    """pytest's command line for a run: the settings travel whole, as JSON in one option.

    The plugin is loaded with `-p` (not `pytest.main(plugins=...)`) because
    xdist workers rebuild their configuration from this command line only.
    pytest's and pytest-playwright's own options (`-n`, `--junitxml`, `--headed`)
    are derived here from the settings, never set separately.
    """
    # anyio's pytest plugin (installed with httpx) is never used by a cell; loading it (and rewriting
    # its asserts, uncached where bytecode is not written) cost each run and each worker ~0.3 s of CPU.
    args = [str(STORY_CELLS_MODULE), "-p", PLUGIN, "-p", "no:cacheprovider", "-p", "no:anyio", "-q", "-rfEs"]
    args += ["--rootdir", str(STORY_CELLS_MODULE.parents[2]), "-o", "addopts=", "-o", "testpaths="]
    args += [SETTINGS_OPTION, settings.model_dump_json()]
    workers = min(settings.max_parallel, len(settings.cells))  # an idle worker would only cost its start-up
    if workers > 1:
        # worksteal, not load: load keeps two cells queued on each worker, so near the end one worker
        # can still have two cells to play while the other sits idle; an idle worker steals instead.
        args += ["-n", str(workers), "--dist", "worksteal"]
    if settings.headed:
        args.append("--headed")
    if settings.junitxml:
        args += ["--junitxml", str(settings.junitxml)]
    return args + list(extra)


def campaign_attempts(results: Path, campaign: str) -> list[LoadedAttempt]:
    """Every package of one campaign, read by the same reader the report uses."""
    return [read_package(results, folder) for folder in campaign_package_folders(results / campaign)]


def latest_records(attempts: Sequence[LoadedAttempt]) -> list[AttemptRecord]:
    """The latest readable attempt of every cell (retries superseded by later ones)."""
    latest: dict[str, AttemptRecord] = {}
    for record in (attempt.record for attempt in attempts if attempt.record):
        current = latest.get(record.cell.execution_id)
        if current is None or record.timing.started_at > current.timing.started_at:
            latest[record.cell.execution_id] = record
    return [latest[key] for key in sorted(latest)]


def _findings(cells: Sequence[Cell]) -> dict[str, KnownFinding | None]:
    return {cell.execution_id: cell.known_finding for cell in cells}


def summary(records: Sequence[AttemptRecord], cells: Sequence[Cell], results: Path, campaign: str) -> str:
    findings = _findings(cells)
    lines = [f"campaign {campaign}: {len(records)} cell(s)"]
    for record in records:
        mode = record.provenance.evidence_mode.value
        reason = f"  {record.reason}" if record.reason else ""
        known = " (known finding)" if is_known_finding(record, findings.get(record.cell.execution_id)) else ""
        lines.append(f"  {record.verdict.value + known:<22} [{mode}] {record.cell.execution_id}{reason}")
        lines.append(f"      evidence: {results / campaign / record.cell.execution_id / record.attempt}")
    counts = Counter(record.verdict.value for record in records)
    lines.append("verdicts: " + (", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items())) or "none"))
    return "\n".join(lines)


def exit_status(records: Sequence[AttemptRecord], cells: Sequence[Cell]) -> int:
    """0 only when every selected cell has a record and each is what the catalog expects.

    Expected: passed or skipped, or failed exactly as the cell's known finding
    declares (see `harness.core.outcomes`).
    """
    findings = _findings(cells)
    if len(records) < len(cells):
        return 1
    return 1 if any(unexpected(record, findings.get(record.cell.execution_id)) for record in records) else 0


def run_cells(settings: RunSettings, extra: Sequence[str] = ()) -> int:
    """Run the settings' cells through pytest, then print and write the campaign's summary."""
    results, campaign = settings.results, settings.campaign
    results.mkdir(parents=True, exist_ok=True)
    print(f"running {len(settings.cells)} cell(s) in campaign {campaign}; evidence under {results / campaign}")
    for leftover in remove_dead_owners():
        print(f"removed what a killed run left: {leftover.folder} ({leftover.processes} process(es) ended)")
    sys.stdout.flush()
    run_folder = claim_run_folder()
    try:
        pytest_status = pytest.main(pytest_arguments(settings, extra))
    finally:
        if ended := release_run_folder(run_folder):
            print(f"ended {ended} process(es) the run's cells left behind")
    attempts = campaign_attempts(results, campaign)
    records = latest_records(attempts)
    print()
    cells = [catalog_cells()[execution_id] for execution_id in settings.cells]
    print(summary(records, cells, results, campaign))
    (results / campaign).mkdir(parents=True, exist_ok=True)
    (results / campaign / "summary.json").write_text(
        summarize_campaign(campaign, attempts).model_dump_json(indent=2) + "\n"
    )
    if pytest_status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) and not records:
        return int(pytest_status) or 1
    return exit_status(records, cells)
