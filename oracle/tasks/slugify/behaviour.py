"""Behaviour checks: which invocations a mode needs, and how raw observations become checks.

The plan is derived from the contract facts only; the verdict is computed on
the host from the collector's raw observations, so nothing inside the
sandbox can decide its own grade.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from oracle.checks import Check
from oracle.tasks.slugify import checks as ids
from oracle.tasks.slugify import contract
from oracle.tasks.slugify.checks import check
from oracle.tasks.slugify.contract import Mode, SlugFact


class CliObservation(BaseModel):
    """What one CLI invocation did, as the collector saw it."""

    args: list[str] = []
    fresh: bool = False
    exit: int | None = None
    stdout: str = ""
    timed_out: bool = False
    flooded: bool = False
    error: str | None = None


class FunctionObservation(BaseModel):
    """What the separate import process reported for slugify(text) over the base texts."""

    exit: int | None = None
    timed_out: bool = False
    flooded: bool = False
    error: str | None = None
    report: dict | None = None


class Observations(BaseModel):
    cli: list[CliObservation]
    function: FunctionObservation
    agent_tests: CliObservation | None = None  # the delivery's own test run (unittest), when asked for


class Expectation(BaseModel):
    """One CLI invocation and what the contract demands of it: a slug, or a rejection (slug None)."""

    check_id: str
    args: tuple[str, ...]
    slug: str | None
    fresh: bool = False  # run in a brand-new interpreter rather than a forked warm one


def _facts(check_id: str, facts: tuple[SlugFact, ...]) -> list[Expectation]:
    return [Expectation(check_id=check_id, args=(f.text, *f.options), slug=f.slug) for f in facts]


def _rejections(check_id: str, option: str, values: tuple[str, ...]) -> list[Expectation]:
    return [Expectation(check_id=check_id, args=("Hello World", option, v), slug=None) for v in values]


def expectations(mode: Mode) -> list[Expectation]:
    """Every CLI invocation the mode's cumulative requirements call for."""
    planned = _facts(ids.BASE_CLI, contract.BASE_FACTS)
    planned.append(planned[0].model_copy(update={"fresh": True}))  # the real `python3 slugify.py` path must agree
    if contract.requires_separator(mode):
        planned += _facts(ids.SEPARATOR_VALUES, contract.SEPARATOR_FACTS)
        planned += _rejections(ids.SEPARATOR_INVALID_REJECTED, "--separator", contract.INVALID_SEPARATORS)
    if contract.requires_max_length(mode):
        planned += _facts(ids.MAX_LENGTH_VALUES, contract.MAX_LENGTH_FACTS)
        planned += _rejections(ids.MAX_LENGTH_INVALID_REJECTED, "--max-length", contract.INVALID_MAX_LENGTHS)
    if contract.requires_separator(mode) and contract.requires_max_length(mode):
        planned += _facts(ids.COMBINED_VALUES, contract.COMBINED_FACTS)
    return planned


def function_texts() -> list[str]:
    return [f.text for f in contract.BASE_FACTS]


def collector_plan(mode: Mode, project: Path, agent_tests: bool) -> dict:
    """The task's part of the JSON plan the in-container collector executes."""
    return {
        "python": "python3",
        "source_file": contract.SOURCE_FILE,
        "cli": [{"args": list(e.args), "fresh": e.fresh} for e in expectations(mode)],
        "function_texts": function_texts(),
        "stdout_limit": 1024,
        "report_stdout_limit": 64 * 1024,
        "agent_tests": ("tests" if (project / "tests").is_dir() else ".") if agent_tests else None,
        "workers": 8,
    }


def _short(value: str, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _cli_problem(expected: Expectation, seen: CliObservation) -> str | None:
    """Why one observation breaks the contract, or None when it holds."""
    call = ("python3 " if expected.fresh else "") + "slugify.py " + " ".join(_short(a, 30) for a in expected.args)
    if seen.error:
        return f"{call}: {seen.error}"
    if seen.timed_out:
        return f"{call}: did not finish within the per-command time limit"
    if seen.flooded:
        return f"{call}: printed more output than any slug could need (cut off)"
    if expected.slug is None:
        return (
            None
            if seen.exit not in (0, None)
            else f"{call}: accepted (exit 0, printed {_short(seen.stdout)}), should be rejected with a non-zero exit"
        )
    if seen.exit != 0:
        return f"{call}: exit status {seen.exit}, expected 0"
    if seen.stdout not in (expected.slug + "\n", expected.slug + "\r\n"):
        return f"{call}: printed {_short(seen.stdout)}, expected {_short(expected.slug + chr(10))}"
    return None


def cli_checks(planned: list[Expectation], seen: list[CliObservation]) -> list[Check]:
    """One check per check id, failing with the first broken invocation and a count of all broken ones."""
    by_args = {(tuple(o.args), o.fresh): o for o in seen}
    results: list[Check] = []
    for check_id in dict.fromkeys(e.check_id for e in planned):
        group = [e for e in planned if e.check_id == check_id]
        problems = [
            p
            for e in group
            if (
                p := _cli_problem(
                    e, by_args.get((e.args, e.fresh), CliObservation(args=list(e.args), error="not observed"))
                )
            )
        ]
        if problems:
            more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
            results.append(check(check_id, False, problems[0] + more))
        else:
            results.append(check(check_id, True, f"{len(group)} invocation(s) as the contract requires"))
    return results


def function_check(seen: FunctionObservation) -> Check:
    """slugify(text) must return each base fact's slug (so it agrees with the CLI facts too)."""
    if seen.timed_out or seen.flooded:
        return check(
            ids.BASE_FUNCTION, False, "importing slugify and calling slugify(text) did not finish within limits"
        )
    if seen.report is None:
        return check(
            ids.BASE_FUNCTION,
            False,
            f"the import process reported nothing (exit {seen.exit}{', ' + seen.error if seen.error else ''})",
        )
    if "error" in seen.report:
        return check(ids.BASE_FUNCTION, False, str(seen.report["error"])[:200])
    results = seen.report.get("results", [])
    for fact, result in zip(contract.BASE_FACTS, results, strict=False):
        if result.get("value") != fact.slug:
            got = _short(result["value"]) if "value" in result else str(result.get("error"))[:120]
            return check(
                ids.BASE_FUNCTION, False, f"slugify({_short(fact.text, 30)}) gave {got}, expected {_short(fact.slug)}"
            )
    if len(results) != len(contract.BASE_FACTS):
        return check(ids.BASE_FUNCTION, False, f"{len(results)} results for {len(contract.BASE_FACTS)} calls")
    return check(ids.BASE_FUNCTION, True, f"slugify(text) returned every {len(results)} base slug")


def agent_tests_diagnostic(seen: CliObservation) -> Check:
    """How the delivery's own tests fared under `python3 -m unittest discover`: recorded, never deciding."""
    if seen.timed_out or seen.flooded or seen.error:
        return check(ids.DIAGNOSTIC_AGENT_TESTS, False, seen.error or "the agent's tests did not finish within limits")
    summary = [
        line for line in seen.stdout.strip().splitlines() if line.startswith(("Ran ", "OK", "FAILED", "NO TESTS"))
    ]
    return check(
        ids.DIAGNOSTIC_AGENT_TESTS,
        seen.exit == 0,
        f"exit {seen.exit}: {' / '.join(summary[-2:]) or 'no unittest summary'}",
    )


def behaviour_checks(mode: Mode, observations: Observations) -> list[Check]:
    planned = expectations(mode)
    return [*cli_checks(planned, observations.cli), function_check(observations.function)]


def judge(mode: Mode, observations: Observations) -> list[Check]:
    """Behaviour checks plus, when the delivery's own tests ran, their diagnostic."""
    found = behaviour_checks(mode, observations)
    if observations.agent_tests is not None:
        found.append(agent_tests_diagnostic(observations.agent_tests))
    return found
