"""Which check ids the harness can emit, read from its code, and which of them no calibration row fails on.

A check that no calibration case has ever made fail may be a check that
cannot fail. So every id the harness can put in an attempt record must be
the expected failure of at least one played calibration row: a product
defect, a faulty persona or a misbehaving replay script. Hand-made
lifecycle records do not count: they prove the rule, not that a product's
records reach it.

The ids come from the code, not from a list kept by hand:

- every string literal in ``harness/`` and ``stories/`` spelled as a check
  id of a known family (``stop.run-cancelled``), wherever it is written: a
  ``CheckRecord(id=...)``, a module constant, an argument of a helper;
- every id built from a template (``f"delivery.{phase}"``), expanded from
  the code's own sets (the phases the stories download, the invariants the
  watch keeps, the lifecycle rules, the expectations). A template the code
  uses but :data:`TEMPLATES` does not expand is reported, so a new one
  cannot slip past;
- the checks the catalog's known findings name.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from calibration.personas import PERSONA_CASES
from calibration.product_defects import DEFECT_CASES
from calibration.replay_scripts import REPLAY_CASES, SECRET_SCAN
from harness.checks.invariants import NAMES as INVARIANTS
from harness.checks.lifecycle import CHECK_IDS as LIFECYCLE_IDS
from harness.core import registry
from harness.running.expectations import EXPECTATIONS, check_id

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("harness", "stories")
NOT_JUDGING = ("harness/testbed", "harness/agents", "harness/replay")
"""The reference product, the agent runtime and the model replay: code under judgement or playing a part, whose
strings (failpoint names, tool names) are not checks."""

FAMILIES = frozenset(
    {
        "approval",
        "budget",
        "connection",
        "controls",
        "credential",
        "decision",
        "delegate",
        "delivery",
        "drain",
        "email",
        "expect",
        "gateway",
        "hire",
        "invariant",
        "lifecycle",
        "metering",
        "oracle",
        "product",
        "provider",
        "readback",
        "restart",
        "reuse",
        "routine",
        "sandbox",
        "service",
        "skill",
        "stall",
        "stop",
        "ui",
    }
)
"""Every family a check id starts with: a literal spelled ``<family>.<name>`` is a check id."""

CHECK_ID = re.compile(r"^(?P<family>[a-z]+)\.[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)*$")
TEMPLATE_PREFIX = re.compile(r"^(?P<family>[a-z]+)\.")

NOT_EMITTING = frozenset(
    {
        Path("harness/results/report/fixtures.py"),  # sample records for the report's own tests
        Path("harness/core/observable.py"),  # the facts each check needs: it names checks, emits none
    }
)
"""Source files that name check ids without emitting them."""


def story_phases(root: Path = ROOT) -> set[str]:
    """The phases the stories download a delivery under: every ``phase=`` literal in ``stories/``."""
    phases = set()
    for path in root.joinpath("stories").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.keyword) and node.arg == "phase" and isinstance(node.value, ast.Constant):
                phases.add(str(node.value.value))
    return phases


TEMPLATES: dict[str, Callable[[], set[str]] | None] = {
    "delivery.{}": lambda: {f"delivery.{phase}" for phase in story_phases()},
    "delivery.{}.sha256": lambda: {f"delivery.{phase}.sha256" for phase in story_phases()},
    "oracle.{}": lambda: {f"oracle.{phase}" for phase in story_phases()},
    # One per failing check of the oracle's own: those are calibrated by the oracle suite's bad deliveries.
    "oracle.{}.{}": None,
    "invariant.{}": lambda: {f"invariant.{name}" for name in INVARIANTS},
    "lifecycle.{}": lambda: set(LIFECYCLE_IDS),
    "expect.{}": lambda: {check_id(name) for name in EXPECTATIONS},
}
"""Each id template the code builds, normalised (``{}`` for each placeholder), and the ids it expands to.

None: ids that are not the harness's own checks (see the comment beside it).
"""


def _template(node: ast.JoinedStr) -> str | None:
    """An f-string's shape with ``{}`` for each placeholder, when it starts with a check family."""
    shape = "".join(
        "{}" if isinstance(part, ast.FormattedValue) else str(part.value)
        for part in node.values
        if isinstance(part, (ast.FormattedValue, ast.Constant))
    )
    found = TEMPLATE_PREFIX.match(shape)
    if not found or found["family"] not in FAMILIES or " " in shape:
        return None
    return shape


def scan(paths: Iterable[Path]) -> tuple[set[str], set[str]]:
    """The literal check ids and the id templates in ``paths``' Python source."""
    literals, templates = set(), set()
    for path in paths:
        tree = ast.parse(path.read_text())
        formatted = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                shape = _template(node)
                if shape:
                    templates.add(shape)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in formatted:
                found = CHECK_ID.match(node.value)
                if found and found["family"] in FAMILIES:
                    literals.add(node.value)
    return literals, templates


def source_files(root: Path = ROOT) -> list[Path]:
    """The harness's and the stories' modules, without the standalone reproductions of findings (no harness code)."""
    files = [path for folder in SOURCES for path in sorted(root.joinpath(folder).rglob("*.py"))]
    return [
        path
        for path in files
        if path.relative_to(root) not in NOT_EMITTING
        and "findings" not in path.relative_to(root).parts[:-1]
        and not str(path.relative_to(root)).startswith(NOT_JUDGING)
    ]


def unknown_templates(root: Path = ROOT) -> set[str]:
    """Templates the code builds ids from that :data:`TEMPLATES` does not know how to expand."""
    return scan(source_files(root))[1] - TEMPLATES.keys()


def emitted_check_ids(root: Path = ROOT) -> set[str]:
    """Every check id the harness can emit, from its code (see the module's docstring)."""
    literals, templates = scan(source_files(root))
    ids = set(literals)
    for shape in templates:
        expand = TEMPLATES.get(shape)
        if expand is not None:
            ids |= expand()
    return ids


def catalog_check_ids() -> set[str]:
    """The checks the catalog's known findings name (each must be one the harness emits)."""
    return {
        check
        for suite in registry.catalog().suites
        for finding in suite.known_findings
        for check in (*finding.checks, *finding.may_also_fail)
    }


Row = tuple[str, tuple[str, ...]]
"""A played calibration row: its label and the checks it must fail on."""


def calibration_rows() -> list[Row]:
    """Every played calibration row and the checks it requires to fail."""
    rows: list[Row] = [
        (f"product-defects {case.label}", (case.expected_check, *case.also_expected)) for case in DEFECT_CASES
    ]
    rows += [
        (f"stories {case.label}", (case.expected_check, *case.also_expected))
        for case in PERSONA_CASES
        if case.expected_check is not None
    ]
    rows += [(f"replay {case.label}", (case.expected,)) for case in REPLAY_CASES if case.expected != SECRET_SCAN]
    return rows


NOT_PLAYABLE_HERE: dict[str, str] = {
    **{
        f"drain.{name}": "only an outside product with a graceful drain plays these; the testbed declares no graceful drain,"
        " so no defect of ours can act on it (its unit tests fail each rule)"
        for name in ("run-interrupted", "work-retried", "message-received", "delivered-once")
    },
    "lifecycle.messages-acted-once": "calibrated by the lifecycle records (follow-up-run-delivers-again), not by a"
    " product defect: a testbed run handed a message again (consumed-message-woken-again) finds the project it"
    " asks for already delivered and says so without delivering, so the work is never done twice",
}
"""Check ids no played row can fail yet, each with why: listed, so the gap is visible and the test names it."""


def uncalibrated(ids: Iterable[str], rows: Iterable[Row]) -> list[str]:
    """The ids no row fails on and that are not listed as not playable here, sorted."""
    calibrated = {check for _, checks in rows for check in checks}
    return sorted(set(ids) - calibrated - NOT_PLAYABLE_HERE.keys())
