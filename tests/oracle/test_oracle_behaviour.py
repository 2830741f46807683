"""The host-side verdict from raw observations (pure functions, no container)."""

from __future__ import annotations

from oracle.tasks.slugify import behaviour
from oracle.tasks.slugify import checks as ids
from oracle.tasks.slugify.behaviour import CliObservation, FunctionObservation, Observations
from oracle.tasks.slugify.contract import BASE_FACTS, MODES


def _perfect(mode: str) -> Observations:
    cli = [
        CliObservation(
            args=list(e.args),
            fresh=e.fresh,
            exit=0 if e.slug is not None else 2,
            stdout=(e.slug + "\n") if e.slug is not None else "",
        )
        for e in behaviour.expectations(mode)
    ]
    function = FunctionObservation(exit=0, report={"results": [{"value": f.slug} for f in BASE_FACTS]})
    return Observations(cli=cli, function=function)


def test_perfect_observations_pass_every_mode() -> None:
    for mode in MODES:
        assert all(c.passed for c in behaviour.behaviour_checks(mode, _perfect(mode)))


def test_modes_are_cumulative() -> None:
    planned = {mode: {e.check_id for e in behaviour.expectations(mode)} for mode in MODES}
    assert planned["base"] == {ids.BASE_CLI}
    assert planned["separator"] == {ids.BASE_CLI, ids.SEPARATOR_VALUES, ids.SEPARATOR_INVALID_REJECTED}
    assert planned["max-length"] == {ids.BASE_CLI, ids.MAX_LENGTH_VALUES, ids.MAX_LENGTH_INVALID_REJECTED}
    assert planned["separator+max-length"] == planned["separator"] | planned["max-length"] | {ids.COMBINED_VALUES}


def test_crlf_line_ending_is_accepted_but_extra_output_is_not() -> None:
    observed = _perfect("base")
    observed.cli[0].stdout = observed.cli[0].stdout.replace("\n", "\r\n")
    assert all(c.passed for c in behaviour.behaviour_checks("base", observed))
    observed.cli[0].stdout = "debug\n" + observed.cli[0].stdout
    failed = [c for c in behaviour.behaviour_checks("base", observed) if not c.passed]
    assert [c.id for c in failed] == [ids.BASE_CLI] and "printed 'debug" in failed[0].detail


def test_fresh_interpreter_disagreement_fails_base_cli() -> None:
    observed = _perfect("base")
    fresh = next(o for o in observed.cli if o.fresh)
    fresh.stdout = "something else\n"
    failed = [c for c in behaviour.behaviour_checks("base", observed) if not c.passed]
    assert [c.id for c in failed] == [ids.BASE_CLI] and failed[0].detail.startswith("python3 slugify.py")


def test_function_disagreeing_with_contract_fails() -> None:
    observed = _perfect("base")
    observed.function.report["results"][1] = {"value": "Queue-Ready"}
    failed = [c for c in behaviour.behaviour_checks("base", observed) if not c.passed]
    assert [c.id for c in failed] == [ids.BASE_FUNCTION]


def test_rejection_needs_a_non_zero_exit() -> None:
    observed = _perfect("separator")
    accepted = next(o for o in observed.cli if o.args[1:] == ["--separator", "."])
    accepted.exit, accepted.stdout = 0, "hello.world\n"
    failed = [c for c in behaviour.behaviour_checks("separator", observed) if not c.passed]
    assert [c.id for c in failed] == [ids.SEPARATOR_INVALID_REJECTED]


def test_timeouts_never_count_as_rejections() -> None:
    observed = _perfect("max-length")
    hung = next(o for o in observed.cli if o.args[1:] == ["--max-length", "0"])
    hung.exit, hung.timed_out = None, True
    failed = [c for c in behaviour.behaviour_checks("max-length", observed) if not c.passed]
    assert [c.id for c in failed] == [ids.MAX_LENGTH_INVALID_REJECTED] and "time limit" in failed[0].detail
