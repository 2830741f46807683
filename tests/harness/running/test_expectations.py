"""Every expectation a story can leave unmet is registered, and each has a calibration case that proves it can fail.

The names come from the code itself: every ``wait``, ``expecting`` and
``unmet`` call in harness/ and stories/ that names an expectation. A new
wait with a new name then fails here until the registry lists it and a
product defect or a scripted persona shows the story failing on it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from calibration.personas import PERSONA_CASES
from calibration.product_defects import DEFECT_CASES
from harness.running.expectations import EXPECTATIONS, check_id

ROOT = Path(__file__).resolve().parents[3]
# The method and the position of its expectation argument (keyword ``expectation`` anywhere).
EXPECTATION_ARGUMENT = {"wait": 2, "expecting": 0, "unmet": 0}


def expectation_names(source: str) -> set[str]:
    """The expectation names ``source`` passes to the journey's waits, as string literals."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        position = EXPECTATION_ARGUMENT.get(node.func.attr)
        if position is None:
            continue
        given = [k.value for k in node.keywords if k.arg == "expectation"]
        given += node.args[position : position + 1]
        names |= {arg.value for arg in given if isinstance(arg, ast.Constant) and isinstance(arg.value, str)}
    return names


def names_in_code() -> set[str]:
    files = [*ROOT.joinpath("harness").rglob("*.py"), *ROOT.joinpath("stories").rglob("*.py")]
    return {name for path in files for name in expectation_names(path.read_text())}


def test_the_scan_finds_each_way_of_naming_an_expectation() -> None:
    source = (
        "journey.wait(probe, 'what', 'task-finished')\n"
        "journey.wait(probe, what='x', expectation='source-saved', timeout=3)\n"
        "with journey.expecting('message-shown', 'what'): pass\n"
        "self.unmet('task-settled', 'detail')\n"
        "process.wait(5)\n"
        "onboard.wait(60)\n"
    )
    assert expectation_names(source) == {"task-finished", "source-saved", "message-shown", "task-settled"}


def test_every_expectation_in_the_code_is_registered_and_every_registered_one_is_used() -> None:
    used = names_in_code()
    assert used - set(EXPECTATIONS) == set(), "used in harness/ or stories/ but not in harness/running/expectations.py"
    assert set(EXPECTATIONS) - used == set(), "registered but no story or harness step waits on it"


def test_every_expectation_has_a_calibration_case_that_fails_on_it() -> None:
    calibrated = {case.expected_check for case in DEFECT_CASES} | {case.expected_check for case in PERSONA_CASES}
    missing = sorted(name for name in EXPECTATIONS if check_id(name) not in calibrated)
    assert missing == [], f"no product defect or persona calibrates expect.{{{', '.join(missing)}}}"
