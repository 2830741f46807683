"""`python -m calibration [SUITE ...]`: run calibration suites, print the table, exit 1 on any wrong row."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

from calibration.record import record_calibration
from calibration.runner import PARALLEL_CELLS, Row, play_at_most, stop_playing, table, where_the_time_went
from calibration.suites import OFFLINE_SUITES, SUITES
from harness.core.machine_cpu import MachineCpu
from harness.core.output_paths import folder_problem, os_error_line
from harness.core.records import utc_now
from harness.evidence.provenance import harness_digest
from harness.results.calibration_record import kept_evidence_path
from harness.running import interrupt
from oracle import image
from oracle.image import CannotGrade


def _timed(suite: Callable[[], list[Row]]) -> tuple[list[Row], float]:
    """A suite's rows and its own wall time (it may share the machine with the other suites)."""
    started = time.monotonic()
    return suite(), time.monotonic() - started


def _discard(kept: Path) -> None:
    """An interrupted or refused run records nothing: not even the evidence its wrong rows kept so far."""
    shutil.rmtree(kept, ignore_errors=True)
    for empty in (kept.parent, kept.parent.parent):  # the folders it made, unless something else is in them
        try:
            empty.rmdir()
        except OSError:
            break


def _at_least_one(text: str) -> int:
    count = int(text)
    if count < 1:
        raise argparse.ArgumentTypeError(f"{text} cells at once: at least 1")
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m calibration", description=__doc__)
    parser.add_argument(
        "suites", nargs="*", metavar="SUITE", help=f"suites to run (default: all of {', '.join(SUITES)})"
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=Path("results"),
        help="where the calibration record, and a wrong row's evidence, go",
    )
    parser.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="where the story cells play: here (default), or on the Ray cluster at --ray-address",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="the cluster --engine ray plays on (default: RAY_ADDRESS, else a two-node one started on this machine)",
    )
    parser.add_argument(
        "--max-parallel",
        type=_at_least_one,
        default=PARALLEL_CELLS,
        metavar="N",
        help=f"story cells played at once here, each in a cell worker of its own (default {PARALLEL_CELLS})",
    )
    args = parser.parse_args(argv)
    unknown = [name for name in args.suites if name not in SUITES]
    if unknown:
        parser.error(f"unknown suite(s) {', '.join(unknown)}; known: {', '.join(SUITES)}")
    problem = folder_problem(args.results)
    if problem:  # found now, not after every suite has run
        parser.error(f"--results {problem}")
    interrupt.install()  # kill and a closed terminal stop calibration as Ctrl-C does
    play_at_most(args.max_parallel)
    if args.engine == "ray":
        from calibration.on_cluster import on_cluster

        with on_cluster(args.ray_address) as refused:
            return refused if refused is not None else _calibrate(args)
    return _calibrate(args)


def _calibrate(args: argparse.Namespace) -> int:
    started, machine = time.monotonic(), MachineCpu()
    kept = kept_evidence_path(args.results, utc_now())
    rows = []
    names = args.suites or list(SUITES)
    timings: list[str] = []
    try:
        if set(names) - OFFLINE_SUITES:  # these grade: an engine or image missing fails here, at once
            image.resolve(image.engine(), None)
        # The suites run side by side (the oracle's containers beside the story cells, which share
        # PARALLEL_CELLS slots across suites); rows and timings still come in the suites' order.
        with ThreadPoolExecutor(max_workers=len(names)) as pool:
            try:
                running = [(name, pool.submit(_timed, partial(SUITES[name], kept))) for name in names]
                for name, future in running:
                    found, seconds = future.result()
                    rows += found
                    timings.append(f"suite {name}: {len(found)} cases in {seconds:.1f} s")
            except KeyboardInterrupt:  # before the pool waits for its suites: they must stop, not run on
                stop_playing()
                raise
    except CannotGrade as error:
        _discard(kept)
        print(f"calibration: cannot grade: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        _discard(kept)
        print(f"calibration: interrupted ({interrupt.stopped_by()}); nothing recorded", file=sys.stderr)
        return 130
    print(table(rows))
    wrong = [r for r in rows if not r.ok]
    for row in wrong:
        print(f"WRONG: {row.wrong_line()}", file=sys.stderr)
    print("\n".join(filter(None, [where_the_time_went(rows), *timings])))
    wall, floor = time.monotonic() - started, machine.floor()
    if floor:
        print(floor)
    print(f"{len(rows) - len(wrong)}/{len(rows)} cases as expected in {wall:.1f} s")
    try:
        recorded = record_calibration(
            rows, harness_digest(), suites=names, complete=set(names) == set(SUITES), results=args.results
        )
    except OSError as error:  # the table above still stands
        print(f"calibration: the record could not be written: {os_error_line(error)}", file=sys.stderr)
        return 1
    print(f"calibration record: {recorded}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
