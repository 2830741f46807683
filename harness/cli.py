"""The ``harness`` command line.

Each subcommand is a thin argparse front over a Python function, and every
flag maps to one keyword argument of that function, so anything the CLI does
a test or a script can do by calling the function. Selectors are shared:
``list`` and ``run`` add them with ``add_selector_arguments`` and turn them
into ``select(...)`` keyword arguments with ``selection_kwargs``, so the two
can never disagree about which cells a command line names. The flags of
``run`` are the fields of ``RunSettings`` (``harness/core/settings.py``):
``add_run_settings_arguments`` declares them from the model and ``run_settings``
builds the one validated object that pytest and every xdist worker receive.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness.core import registry
from harness.core.catalog import Cell
from harness.core.observable import CHECK_FACTS
from harness.core.output_paths import file_problem, folder_problem, os_error_line
from harness.core.profiles import SCRIPTED
from harness.core.settings import RunSettings, run_flags
from harness.running.selection import SelectionError, not_applicable, select

PROG = "harness"
# Exit status for a command line the harness cannot honour (argparse uses the same).
USAGE_ERROR = 2
READER_GONE = 120  # what Python itself exits with when its output cannot be flushed
DEFAULT_RESULTS = Path("results")


def add_selector_arguments(parser: argparse.ArgumentParser) -> None:
    """The selector flags, one per ``select`` keyword; repeatable flags widen their dimension."""
    group = parser.add_argument_group(
        "selection",
        "repeat a flag to widen it, combine different flags to narrow; paid cells only by --suite or exact --id",
    )
    group.add_argument("--all", action="store_true", help="every cell except those of manual (paid) suites")
    group.add_argument("--suite", dest="suites", action="append", default=[], metavar="S", help="suite name")
    group.add_argument("--profile", dest="profiles", action="append", default=[], metavar="P", help="profile name")
    group.add_argument(
        "--environment", dest="environments", action="append", default=[], metavar="E", help="environment name"
    )
    group.add_argument("--case", dest="cases", action="append", default=[], metavar="C", help="case name")
    group.add_argument(
        "--id",
        dest="ids",
        action="append",
        default=[],
        metavar="ID",
        help="full execution id, or a case name for its scripted local cell; stands alone",
    )
    group.add_argument("--shard", metavar="i/n", help="keep only shard i of n (1-based) of the sorted selection")


def selection_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The ``select(...)`` keyword arguments a parsed command line asks for."""
    return {
        "all": args.all,
        "suites": tuple(args.suites),
        "profiles": tuple(args.profiles),
        "environments": tuple(args.environments),
        "cases": tuple(args.cases),
        "ids": tuple(args.ids),
        "shard": args.shard,
    }


def list_cells(**selectors: Any) -> list[str]:
    """Execution IDs of a selection, in run order; runs nothing."""
    return [cell.execution_id for cell in select(**selectors)]


def _cmd_list(args: argparse.Namespace) -> int:
    if args.judges:
        from harness.judges.door import describe

        for name, about in describe():
            print(f"{name}  {about}")
        return 0
    if args.not_observable:
        for cell in select(**selection_kwargs(args)):
            for check_id in sorted(CHECK_FACTS):
                if reason := cell.unobservable(check_id):
                    print(f"{cell.execution_id}  {check_id}  not observable: {reason}")
        return 0
    if args.not_applicable:
        selectors = {k: v for k, v in selection_kwargs(args).items() if k not in ("ids", "shard")}
        for cell, reason in not_applicable(**selectors):
            print(f"{cell.execution_id}  not applicable: {reason}")
        return 0
    for execution_id in list_cells(**selection_kwargs(args)):
        print(execution_id)
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    extra = args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args
    try:
        settings = run_settings(args)
    except ValidationError as error:
        raise UsageError(_settings_error(error)) from error
    if settings.engine == "ray":
        local_only = [
            name
            for name, given in (
                ("--headed", settings.headed),
                ("--junitxml", settings.junitxml),
                ("--pair", settings.pair),
                ("--rerun", settings.rerun),
                ("pytest arguments", extra),
            )
            if given
        ]
        if local_only:
            raise UsageError(
                f"{', '.join(local_only)}: the local engine's only; --engine ray plays cells on other machines"
            )
        from harness.running.cluster.engine import run_on_ray  # imports Ray: only on a cluster

        return run_on_ray(settings)
    from harness.running.campaign import run_cells  # imports pytest and playwright: only when running

    return run_cells(settings, extra=extra, show_pytest=args.verbose)


def add_run_settings_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per RunSettings field that declares one; values stay text until RunSettings validates them."""
    for name, meta in run_flags().items():
        if RunSettings.model_fields[name].annotation is bool:
            parser.add_argument(meta["flag"], dest=name, action="store_true", default=None, help=meta["help"])
        else:
            parser.add_argument(meta["flag"], dest=name, metavar=meta["metavar"], help=meta["help"])


def run_settings(args: argparse.Namespace) -> RunSettings:
    """The one validated settings object of a `harness run` command line (raises ValidationError or UsageError).

    ``--resume CAMPAIGN`` takes the campaign's own plan (its cells and settings);
    flags named beside it (``--attempts``, ``--max-parallel``, ...) change only what they name.
    """
    given = {name: getattr(args, name) for name in run_flags() if getattr(args, name) is not None}
    if args.resume is None:
        cells = select(**selection_kwargs(args))
        settings = RunSettings.model_validate({"cells": tuple(cell.execution_id for cell in cells), **given})
        for _, variant in settings.variants():  # each variant of a paired run must be playable
            _require_known_calibration_names(variant, cells)
            _require_fitting_cassette(variant, cells)
        return settings
    from harness.results.plan import PlanError, read_plan

    if any(selection_kwargs(args).values()) or given.get("campaign", args.resume) != args.resume:
        raise UsageError("--resume runs the campaign's own cells: name no selection and no other --campaign beside it")
    if "pair" in given:
        raise UsageError("--pair is part of a campaign's plan: a resume plays the campaign as it was started")
    checked = RunSettings.model_validate(given)  # the flags alone, so a bad value is named as typed
    try:
        plan = read_plan(checked.results, checked.resume or "")
    except PlanError as error:
        raise UsageError(str(error)) from error
    return RunSettings.model_validate({**plan.model_dump(), **given, "campaign": checked.resume})


def _require_known_calibration_names(settings: RunSettings, cells: Sequence[Cell]) -> None:
    """A faulty persona or a product defect the selected cells cannot have is refused before anything starts."""
    from harness.agents.scripted.agent import PERSONAS

    persona, defect = settings.scripted_persona, settings.product_defect
    if persona is not None:
        if persona not in PERSONAS:
            raise UsageError(f"--scripted-persona: unknown persona {persona!r}; known: {', '.join(PERSONAS)}")
        if others := sorted({cell.profile.name for cell in cells} - {SCRIPTED.name}):
            raise UsageError(f"--scripted-persona applies to the scripted profile only, not {', '.join(others)}")
    if defect is not None:
        for name in sorted({cell.environment.product for cell in cells}):
            known = registry.product(name).defects
            if defect not in known:
                offer = f"known: {', '.join(known)}" if known else "it has none to switch on"
                raise UsageError(f"--product-defect: {name} has no defect {defect!r}; {offer}")


def _require_fitting_cassette(settings: RunSettings, cells: Sequence[Cell]) -> None:
    """A cassette that cannot be read or was recorded on another story, agent or product is refused before anything
    starts; so is recording where no model answers."""
    if settings.record and (scripted := [c.execution_id for c in cells if c.profile.model_server == "none"]):
        raise UsageError(f"--record: the scripted agent makes no model calls to record ({scripted[0]})")
    if settings.cassette is None:
        return
    from harness.cassettes.model import CassetteError, load_cassette

    try:
        cassette = load_cassette(settings.cassette)
    except CassetteError as error:
        raise UsageError(f"--cassette: {error}") from None
    recorded = (cassette.case, cassette.profile, cassette.product)
    for cell in cells:
        if (cell.case.name, cell.profile.name, cell.environment.product) != recorded:
            raise UsageError(
                f"--cassette: it was recorded on {cassette.cell}; {cell.execution_id} is another story, agent or product"
            )


def _settings_error(error: ValidationError) -> str:
    """One line naming each refused flag, its value and why, in the words a person typed."""
    flags = run_flags()
    parts = []
    for problem in error.errors():
        message = problem["msg"].removeprefix("Value error, ")
        if not problem["loc"]:  # a rule between flags: the message names them
            parts.append(message)
            continue
        name = str(problem["loc"][0])
        flag = flags[name]["flag"] if name in flags else name
        parts.append(f"{flag} {problem.get('input')!r}: {message[:1].lower()}{message[1:]}")
    return "; ".join(parts)


class UsageError(ValueError):
    """A command line naming something that is not there or not what it must be: one line, exit 2."""


def _roots(args: argparse.Namespace) -> list[Path]:
    """The results folders to read; each must exist, or a typo would read as "0 attempts"."""
    roots = list(args.results) or [DEFAULT_RESULTS]
    missing = [str(root) for root in roots if not root.is_dir()]
    if missing:
        raise UsageError(f"no results folder {', '.join(missing)}")
    return roots


def _output_folder(path: Path, flag: str) -> Path:
    """A folder to write into: it may not exist yet, but no file may stand in its way."""
    problem = folder_problem(path)
    if problem:
        raise UsageError(f"{flag} {problem}")
    return path


def _cmd_report(args: argparse.Namespace) -> int:
    from harness.results.report.build import build_report  # Jinja2 and Pillow: only when reporting
    from harness.results.report.versus_page import build_versus

    built = build_report(results=_roots(args), out=_output_folder(args.out, "--out"), copy_evidence=args.copy_evidence)
    print(
        f"report of {built.attempts} attempt(s) ({built.broken} broken) in {built.seconds:.1f} s: {built.index.as_uri()}"
    )
    for path, error in built.thumbnail_errors.items():
        print(f"  unreadable screenshot {path}: {error}", file=sys.stderr)
    for a, b in args.versus:
        try:
            print(f"attempt against attempt: {build_versus(a, b, built.out).as_uri()}")
        except ValueError as error:
            print(f"harness report --versus: {error}", file=sys.stderr)
            return 2
    return 0


def _cmd_merge(args: argparse.Namespace) -> int:
    from harness.results.merge import MergeConflict, merge_results

    try:
        merged = merge_results(args.sources, into=_output_folder(args.into, "--into"))
    except MergeConflict as error:
        print(f"{PROG} merge: {error}", file=sys.stderr)
        return 1
    print(
        f"merged into {args.into}: {merged.copied} file(s) copied, {merged.identical} already there, {len(merged.skipped)} derived file(s) skipped"
    )
    return 0


def _cmd_review(args: argparse.Namespace) -> int:
    from harness.results.review import ReviewError, default_reviewer, write_review

    if args.criterion or args.set:
        from harness.judges.override import OverrideError, override

        if not (args.criterion and args.set):
            raise UsageError("--criterion and --set go together: which judged criterion, and its result")
        folder = args.attempt.parent if args.attempt.name == "attempt.json" else args.attempt
        try:
            path = override(folder, args.criterion, args.set, args.reviewer or default_reviewer(), args.note)
        except OverrideError as error:
            print(f"{PROG} review: {error}", file=sys.stderr)
            return USAGE_ERROR
        print(f"judged criterion {args.criterion} set to {args.set}: {path}")
        return 0
    try:
        path = write_review(args.attempt, note=args.note, reviewer=args.reviewer)
    except ReviewError as error:
        print(f"{PROG} review: {error}", file=sys.stderr)
        return USAGE_ERROR
    print(f"review note written: {path}")
    return 0


def _cmd_promote(args: argparse.Namespace) -> int:
    from harness.results.promotion import promote

    decision, path = promote(
        args.suite,
        results=_roots(args),
        campaigns=tuple(args.campaigns),
        min_independent=args.min_attempts,
        baseline=args.baseline,
    )
    if path is None:
        print(f"{PROG} promote: refusing to promote {args.suite}, {len(decision.reasons)} reason(s):", file=sys.stderr)
        for reason in decision.reasons:
            print(f"  - {reason}", file=sys.stderr)
        return 1
    print(f"promoted {args.suite} on {len(decision.counted)} attempt(s): {path}")
    if decision.recovered:
        print(
            f"of which {len(decision.recovered)} passed only after the harness recovered: "
            + ", ".join(decision.recovered)
        )
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from harness.results.compare import CompareError, compare, record_comparison
    from harness.results.compare_text import table

    try:
        alpha = float(args.alpha)
    except ValueError:
        raise UsageError(f"--alpha {args.alpha!r}: not a number") from None
    try:
        comparison = compare(args.campaigns, results=args.results, alpha=alpha)
    except CompareError as error:
        raise UsageError(str(error)) from error
    path = record_comparison(comparison, args.results)
    print(comparison.model_dump_json(indent=2) if args.json else f"{table(comparison)}\nrecorded: {path}")
    return 0


def _cmd_regrade(args: argparse.Namespace) -> int:
    from harness.judging.regrade import RegradeError
    from harness.results.regrade import describe, packages_under, regrade

    try:
        settings = _judge_settings(args) if args.judges else None
        done = regrade(args.paths)
        packages = packages_under(args.paths) if args.judges else []
    except RegradeError as error:
        raise UsageError(str(error)) from error
    print("\n".join(describe(done)))
    if settings is not None:
        from harness.judges.campaign import judge_packages

        print(judge_packages(packages, args.judges, settings).line())
    return 1 if any(item.assessment is None for item in done) else 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from harness.core.schema import write_schema

    problem = args.out and not args.out.is_dir() and file_problem(args.out)
    if problem:
        raise UsageError(f"--out {problem}")
    if args.of == "comparison":
        from harness.results.compare import comparison_schema_text

        text = comparison_schema_text()
        if args.out is not None:
            (args.out / "comparison.schema.json" if args.out.is_dir() else args.out).write_text(text)
    else:
        text = write_schema(args.out)
    if args.out is None:
        print(text, end="")
    return 0


def _cmd_summary(args: argparse.Namespace) -> int:
    from harness.results.packages import load_attempts
    from harness.results.summary import summarize, summary_text

    attempts = load_attempts(_roots(args))
    known = sorted({attempt.campaign for attempt in attempts})
    if unknown := [campaign for campaign in args.campaigns if campaign not in known]:
        offer = f"; the latest: {', '.join(known[-3:])}" if known else "; the results hold none"
        raise UsageError(f"no campaign {', '.join(unknown)}{offer}")
    if args.json and not args.campaigns:
        print(summarize(attempts).model_dump_json(indent=2))
        return 0
    wanted = args.campaigns or known[-1:]  # campaign ids are time-ordered: the last is the latest
    summary = summarize([attempt for attempt in attempts if attempt.campaign in wanted])
    if args.json:
        print(summary.model_dump_json(indent=2))
        return 0
    for campaign in summary.campaigns:
        print(summary_text(campaign, [attempt for attempt in attempts if attempt.campaign == campaign.campaign]))
    if not summary.campaigns:
        print("no attempts in the results")
    return 0


def _cmd_clean(args: argparse.Namespace) -> int:
    from harness.running.ownership import owned_root, remove_dead_owners

    removed = remove_dead_owners()
    for item in removed:
        print(f"removed {item.folder} ({item.processes} process(es) ended)")
    print(f"{len(removed)} folder(s) of dead runs removed from {owned_root()}; runs still alive were left alone")
    return 0


def _add_results_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--results",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="results folder; repeat to combine folders copied from several machines (default results/)",
    )


def _add_report_commands(commands: argparse._SubParsersAction) -> None:
    """Subcommands of the evidence browser and the promotion gate (issue 6)."""
    report = commands.add_parser("report", help="build the static evidence report (opens from file://)")
    _add_results_argument(report)
    report.add_argument("--out", type=Path, default=Path("report"), help="site folder (default report/)")
    report.add_argument(
        "--copy-evidence",
        action="store_true",
        help="copy packages into the site (self-contained) instead of linking into the results folder",
    )
    report.add_argument(
        "--versus",
        nargs=2,
        type=Path,
        action="append",
        default=[],
        metavar=("A", "B"),
        help="also write the attempt-against-attempt page of two packages (repeatable)",
    )
    report.set_defaults(func=_cmd_report)

    merge = commands.add_parser("merge", help="copy results folders together; refuses to overwrite different files")
    merge.add_argument("sources", type=Path, nargs="+", metavar="SRC", help="results folders to merge")
    merge.add_argument("--into", type=Path, required=True, metavar="DIR", help="destination results folder")
    merge.set_defaults(func=_cmd_merge)

    review = commands.add_parser("review", help="add a review note to an attempt (review.json beside attempt.json)")
    review.add_argument("attempt", type=Path, metavar="ATTEMPT_PATH", help="the attempt's folder")
    review.add_argument("--note", required=True, help="what the reviewer concluded")
    review.add_argument("--reviewer", help="who reviewed (default: git user.name)")
    review.add_argument("--criterion", metavar="ID", help="a judged criterion of the attempt's case to set by hand")
    review.add_argument(
        "--set", choices=("passed", "failed", "inconclusive"), help="the criterion's result, over any judge's"
    )
    review.set_defaults(func=_cmd_review)

    promote = commands.add_parser("promote", help="promote a suite version, or name every reason it cannot be")
    promote.add_argument("--suite", required=True, metavar="S", help="suite to promote")
    _add_results_argument(promote)
    promote.add_argument(
        "--campaign",
        dest="campaigns",
        action="append",
        default=[],
        metavar="C",
        help="count only these campaigns (repeatable; default: every campaign)",
    )
    promote.add_argument(
        "--min-attempts",
        type=_positive_int,
        default=3,
        metavar="N",
        help="independent attempts per local cell (default 3)",
    )
    promote.add_argument(
        "--baseline",
        metavar="CAMPAIGN",
        help="refuse when the one --campaign counted is worse than this campaign on any cell (harness compare's rule)",
    )
    promote.set_defaults(func=_cmd_promote)

    schema = commands.add_parser("schema", help="print (or write) the JSON Schema of attempt.json (or of a comparison)")
    schema.add_argument("--out", type=Path, help="write here (a folder gets <of>.schema.json)")
    schema.add_argument(
        "--of", choices=("attempt", "comparison"), default="attempt", help="which record (default attempt)"
    )
    schema.set_defaults(func=_cmd_schema)

    compare = commands.add_parser(
        "compare",
        help="did it get worse? campaigns as independent samples (Fisher), or a paired campaign's pairs (McNemar)",
    )
    compare.add_argument(
        "campaigns",
        nargs="+",
        metavar="CAMPAIGN",
        help="a paired campaign (run with --pair); or a base and candidates, each tested against the first"
        " (a folder, or an id under --results)",
    )
    compare.add_argument("--results", type=Path, default=DEFAULT_RESULTS, metavar="DIR", help="default results/")
    compare.add_argument("--alpha", default="0.05", metavar="A", help="significance level after Holm (default 0.05)")
    compare.add_argument(
        "--json", action="store_true", help="print the comparison as JSON (harness schema --of comparison)"
    )
    compare.set_defaults(func=_cmd_compare)

    regrade = commands.add_parser(
        "regrade",
        help="judge saved attempts again with the current checks; writes a new assessment beside each, never over it",
    )
    regrade.add_argument(
        "paths", nargs="+", type=Path, metavar="RESULTS", help="a results folder, a campaign, a cell or one attempt"
    )
    _add_judge_flags(regrade, required=False)
    regrade.set_defaults(func=_cmd_regrade)

    summary = commands.add_parser(
        "summary", help="print a campaign's attempts as a table (cell, verdict, failed checks, time, cost)"
    )
    summary.add_argument(
        "campaigns", nargs="*", metavar="CAMPAIGN", help="campaign id(s) (default: the latest; with --json: all)"
    )
    _add_results_argument(summary)
    summary.add_argument("--json", action="store_true", help="print the machine-readable summary instead")
    summary.set_defaults(func=_cmd_summary)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The full parser; each subparser stores its handler as ``func``."""
    parser = argparse.ArgumentParser(prog=PROG, description="Browser-driven workflow evals for agent work platforms.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    list_parser = commands.add_parser("list", help="print the execution ids a selection names, one per line")
    add_selector_arguments(list_parser)
    list_parser.add_argument(
        "--not-applicable",
        action="store_true",
        help="print instead the cells the selection names that do not exist, each with the reason",
    )
    list_parser.add_argument(
        "--not-observable",
        action="store_true",
        help="print, for each cell, the checks its product's declaration leaves not observable, with why"
        " (decided before any run)",
    )
    list_parser.add_argument(
        "--judges", action="store_true", help="print instead the judges registered behind the judges' door"
    )
    list_parser.set_defaults(func=_cmd_list)

    run_parser = commands.add_parser("run", help="run the selected cells and print a verdict summary")
    add_selector_arguments(run_parser)
    add_run_settings_arguments(run_parser)
    run_parser.add_argument(
        "-v", "--verbose", action="store_true", help="show pytest's own output too (else kept in the campaign folder)"
    )
    run_parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="after --: more pytest arguments (-k, -x)")
    run_parser.set_defaults(func=_cmd_run)

    clean = commands.add_parser("clean", help="end the processes and remove the folders that killed runs left behind")
    clean.set_defaults(func=_cmd_clean)

    _add_report_commands(commands)
    _add_judge_command(commands)
    return parser


def _judge_settings(args: argparse.Namespace) -> Any:
    """The judges' settings of a command line (flags over ``EVERYDAY_JUDGE_*``), refused in one line."""
    from harness.judges.door import JudgeDoorError, judge_names
    from harness.judges.settings import JudgeSettings

    try:
        settings = JudgeSettings.from_environment(
            endpoint=args.judge_endpoint,
            model=args.judge_model,
            protocol=args.judge_protocol,
            budget_cents=args.judge_budget_cents,
            timeout_s=args.judge_timeout,
        )
        unknown = [name for name in args.judges if name not in judge_names()]
    except ValidationError as error:
        raise UsageError(f"judge settings: {error.errors()[0]['loc']}: {error.errors()[0]['msg']}") from error
    except JudgeDoorError as error:
        raise UsageError(str(error)) from error
    if unknown:
        raise UsageError(f"no judge {', '.join(unknown)}; known: {', '.join(judge_names())}")
    if "model" in args.judges and not (settings.endpoint and settings.model):
        raise UsageError("--judge model needs --judge-endpoint and --judge-model (or EVERYDAY_JUDGE_ENDPOINT, _MODEL)")
    return settings


def _cmd_judge(args: argparse.Namespace) -> int:
    from harness.judges.campaign import judge_campaign

    campaign = args.campaign if args.campaign.is_dir() else args.results / args.campaign
    if not campaign.is_dir():
        raise UsageError(f"no campaign {args.campaign} (neither a folder nor a campaign under {args.results})")
    run = judge_campaign(campaign, args.judges, _judge_settings(args))
    print(run.line())
    for path in run.judgements:
        print(f"  {path}")
    return 0


def _add_judge_command(commands: argparse._SubParsersAction) -> None:
    judge = commands.add_parser(
        "judge", help="judge a saved campaign's criteria; each judgement is a new file beside its package"
    )
    judge.add_argument(
        "campaign", type=Path, metavar="CAMPAIGN", help="the campaign: its folder, or its id under --results"
    )
    judge.add_argument("--results", type=Path, default=DEFAULT_RESULTS, metavar="DIR", help="default results/")
    _add_judge_flags(judge, required=True)
    judge.set_defaults(func=_cmd_judge)


def _add_judge_flags(parser: argparse.ArgumentParser, required: bool) -> None:
    """The judges and their settings: shared by ``harness judge`` and ``harness regrade --judge``."""
    parser.add_argument(
        "--judge",
        dest="judges",
        action="append",
        required=required,
        default=[],
        metavar="NAME",
        help="a judge of the stories' judged criteria (harness list --judges); repeat for a jury",
    )
    parser.add_argument("--judge-endpoint", metavar="URL", help="the model judge's endpoint, before /v1")
    parser.add_argument("--judge-model", metavar="MODEL", help="the model judge's pinned model id")
    parser.add_argument("--judge-protocol", choices=("openai", "anthropic"), help="the endpoint's wire protocol")
    parser.add_argument("--judge-timeout", type=float, metavar="S", help="seconds one judge call may take")
    parser.add_argument(
        "--judge-budget-cents", type=float, metavar="C", help="stop calling models once the judges spent this much"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``harness`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits on --help and on usage errors
        return exit_.code if isinstance(exit_.code, int) else USAGE_ERROR
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return USAGE_ERROR
    try:
        return handler(args)
    except (SelectionError, UsageError) as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return USAGE_ERROR
    except BrokenPipeError:  # the reader went away (`| head`): nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return READER_GONE
    except OSError as error:  # a path the machine refuses (not a folder, read-only, full): one line, not a traceback
        print(f"{PROG}: {os_error_line(error)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
