"""`harness run`: select cells, run them as pytest items, summarise the verdicts.

pytest does the running (selection by -k, -x, junit XML, xdist workers); this
module only builds its command line and reads the attempt records back to
print one screen a person can act on.
"""

from __future__ import annotations

import logging
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from harness.core.catalog import Cell, KnownFinding
from harness.core.outcomes import is_known_finding, unexpected
from harness.core.records import AttemptRecord
from harness.core.settings import SETTINGS_OPTION, RunSettings
from harness.products import warm_up
from harness.results.epochs import by_cell, counted_ends, ending, epoch_ends, figures
from harness.results.explain import explain
from harness.results.packages import LoadedAttempt, campaign_package_folders, catalog_cells, read_package
from harness.results.plan import write_plan
from harness.results.statistics import CellFigures
from harness.results.summary import summarize_campaign
from harness.running import interrupt
from harness.running.board import board_for
from harness.running.ownership import claim_run_folder, release_run_folder, remove_dead_owners
from harness.running.progress import PROGRESS_ENV

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
    workers = _workers(settings)
    if workers > 1:
        # worksteal, not load: load keeps two cells queued on each worker, so near the end one worker
        # can still have two cells to play while the other sits idle; an idle worker steals instead.
        args += ["-n", str(workers), "--dist", "worksteal"]
    if settings.headed:
        args.append("--headed")
    if settings.junitxml:
        args += ["--junitxml", str(settings.junitxml)]
    return args + list(extra)


def _workers(settings: RunSettings) -> int:
    """How many xdist workers play the cells (an idle worker would only cost its start-up); 1: none, this process."""
    return min(settings.max_parallel, len(settings.cells))


def campaign_attempts(results: Path, campaign: str) -> list[LoadedAttempt]:
    """Every package of one campaign, read by the same reader the report uses."""
    return [read_package(results, folder) for folder in campaign_package_folders(results / campaign)]


def _findings(cells: Sequence[Cell]) -> dict[str, KnownFinding | None]:
    return {cell.execution_id: cell.known_finding for cell in cells}


def _percent(value: float) -> str:
    return f"{100 * value:.0f}%"


def figures_line(figures: CellFigures) -> str:
    """n, the rate with its Wilson interval, pass@k and pass^k for k = 1..n, and what was not decisive."""
    if figures.rate is None:
        text = "no decisive attempt"
    else:
        low, high = _percent(figures.interval.low), _percent(figures.interval.high)
        at_k = " ".join(_percent(value) for value in figures.pass_at_k.values())
        hat_k = " ".join(_percent(value) for value in figures.pass_hat_k.values())
        text = f"n={figures.n} rate {_percent(figures.rate)} [{low}, {high}] pass@k {at_k}  pass^k {hat_k}"
    beside = ", ".join(f"{count} {ending}" for ending, count in figures.tally.beside().items())
    return text + (f"  (beside: {beside})" if beside else "")


def summary(
    records: Sequence[AttemptRecord], cells: Sequence[Cell], results: Path, campaign: str, epochs: int = 1
) -> str:
    """One screen: each cell's latest counted verdict and evidence; with several attempts its figures (over every
    attempt, what was not decisive beside) and failed checks; every selected cell without an attempt as not run."""
    findings = _findings(cells)
    ends = by_cell(records)
    many = any(len(cell_ends) > 1 for cell_ends in ends.values())
    lines = [f"campaign {campaign}: {len(ends)} cell(s)" + (f", {len(epoch_ends(records))} attempt(s)" if many else "")]
    for (execution_id, variant), cell_ends in by_variant(ends).items():
        record = (counted_ends(cell_ends, epochs) or cell_ends)[-1]
        mode = record.provenance.evidence_mode.value
        known = " (known finding)" if is_known_finding(record, findings.get(execution_id)) else ""
        node = f" (node {record.provenance.node})" if record.provenance.node else ""
        lines.append(f"  {ending(record) + known:<22} [{mode}] {execution_id}{node}{variant and f' {variant}'}")
        if many:
            cell_figures = figures(cell_ends)
            lines.append(f"      {figures_line(cell_figures)}")
            if cell_figures.failed_checks:
                checks = ", ".join(f"{check} x{count}" for check, count in cell_figures.failed_checks.items())
                lines.append(f"      failed checks: {checks}")
        explanation = explain(record, results / campaign / execution_id / record.attempt)
        if explanation.why:
            lines.append(f"      {explanation.why}")
        lines.append(f"      evidence: {explanation.evidence}")
    for cell in cells:
        if cell.execution_id not in ends:
            lines.append(f"  {'not run':<22} [{cell.evidence_mode.value}] {cell.execution_id}")
    counts = Counter(ending(end) for cell_ends in ends.values() for end in cell_ends)
    lines.append("verdicts: " + (", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items())) or "none"))
    return "\n".join(lines)


def by_variant(ends: dict[str, list[AttemptRecord]]) -> dict[tuple[str, str], list[AttemptRecord]]:
    """(cell, variant label) -> its ends: a paired run's variants are figured apart, never pooled ('' unpaired)."""
    split: dict[tuple[str, str], list[AttemptRecord]] = {}
    for execution_id, cell_ends in ends.items():
        for end in cell_ends:
            split.setdefault((execution_id, end.pair.variant if end.pair else ""), []).append(end)
    return dict(sorted(split.items()))


def exit_status(records: Sequence[AttemptRecord], cells: Sequence[Cell], epochs: int = 1) -> int:
    """0 only when every selected cell has a counted attempt and each is what the catalog expects.

    Expected: passed or skipped, or failed exactly as the cell's known finding
    declares (see `harness.core.outcomes`). An attempt is counted once, by the
    last of its automatic retries; the attempts counted are ``counted_ends``
    (so what a resume replaced is judged no more, and an interruption never).
    """
    findings = _findings(cells)
    ends = {cell: counted_ends(found, epochs) for cell, found in by_cell(records).items()}
    if any(not ends.get(cell.execution_id) for cell in cells):
        return 1
    return 1 if any(unexpected(end, findings.get(cell)) for cell, found in ends.items() for end in found) else 0


def announce(settings: RunSettings, where: str = "") -> None:
    """The run's first line (and the plan a resume reads): what runs, in which campaign, where its evidence goes."""
    write_plan(settings)
    results, campaign = settings.results, settings.campaign
    doing = (
        f"resuming campaign {campaign}: {len(settings.cells)} cell(s), playing again what is"
        f" {' or '.join(sorted(settings.reruns))}"
        if settings.resume
        else (f"running {len(settings.cells)} cell(s) in campaign {campaign}")
    )
    times = f", {settings.epochs} attempt(s) each" if settings.epochs > 1 else ""
    if settings.pair is not None:
        times += ", each played as " + " then ".join(label for label, _ in settings.variants())
    print(f"{doing}{times}{where}; evidence under {results / campaign}")
    sys.stdout.flush()


def conclude(settings: RunSettings) -> tuple[list[AttemptRecord], int]:
    """Print and write the campaign's summary; its records and the exit status they give."""
    results, campaign = settings.results, settings.campaign
    attempts = campaign_attempts(results, campaign)
    records = [attempt.record for attempt in attempts if attempt.record]
    print()
    cells = [catalog_cells()[execution_id] for execution_id in settings.cells]
    print(summary(records, cells, results, campaign, settings.epochs))
    if settings.pair is not None:
        print(f"paired run ({settings.pair.flag}): `harness compare {campaign}` compares the recorded pairs")
    (results / campaign).mkdir(parents=True, exist_ok=True)
    (results / campaign / "summary.json").write_text(
        summarize_campaign(campaign, attempts, planned=settings.cells).model_dump_json(indent=2) + "\n"
    )
    return records, exit_status(records, cells, settings.epochs * len(settings.variants()))


def run_cells(settings: RunSettings, extra: Sequence[str] = (), show_pytest: bool = False) -> int:
    """Run the settings' cells through pytest, then print and write the campaign's summary.

    Exit status: ``exit_status``'s, or 128 + the signal's number when the run was told to stop (130 for Ctrl-C),
    after the summary of what ended. pytest's own output goes to the campaign's ``PYTEST_OUTPUT`` unless
    ``show_pytest`` (or ``extra`` pytest arguments) asks for it on the terminal.
    """
    results, campaign = settings.results, settings.campaign
    announce(settings)
    for leftover in remove_dead_owners():
        print(f"removed what a killed run left: {leftover.folder} ({leftover.processes} process(es) ended)")
    sys.stdout.flush()
    run_folder = claim_run_folder()
    if _workers(settings) <= 1:  # the cells play in this process: their products' start-up overlaps pytest's own
        warm_up((catalog_cells()[cell].environment.product for cell in settings.cells), len(settings.cells) > 1)
    progress = run_folder / "progress"
    progress.mkdir()
    os.environ[PROGRESS_ENV] = str(progress)
    played = len(settings.cells) * settings.epochs * len(settings.variants())
    board = board_for(progress, played, results / campaign, show_pytest or bool(extra))
    board.start()
    try:
        pytest_status = pytest.main(pytest_arguments(settings, extra), plugins=[board])
    finally:
        board.stop()
        os.environ.pop(PROGRESS_ENV, None)
        if ended := release_run_folder(run_folder):
            print(f"ended {ended} process(es) the run's cells left behind")
    records, status = conclude(settings)
    if interrupt.interrupted():
        # The browser's driver was closed under Playwright's pending calls on purpose: asyncio would report each
        # of their futures as "never retrieved" when it is collected, after the summary.
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        print(f"stopped by {interrupt.stopped_by()}: nothing left running; `--resume {campaign}` plays what is missing")
        return interrupt.stopped_status()
    if board.unfinished_items or (pytest_status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)):
        if board.pytest_output is not None:
            print(f"pytest's own output: {board.pytest_output}")
    if pytest_status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) and not records:
        return int(pytest_status) or 1
    return status
