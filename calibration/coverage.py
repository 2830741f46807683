"""Which check ids the harness can emit, read from its code, and which of them no calibration row fails on.

A check that no calibration case has ever made fail may be a check that
cannot fail. So every id the harness can put in an attempt record must be
the expected failure of at least one played calibration row: a product
defect, a faulty persona or a misbehaving replay script. Hand-made
lifecycle records do not count: they prove the rule, not that a product's
records reach it.

The ids come from the code, not from a list kept by hand:

- the sources are the harness and every package the project's entry points
  name: the stories, the built-in product, and every installed plug-in
  (plugins/*), whose checks are calibrated like the harness's own;
- the families are those of the ids the code hands to whatever emits a
  check (``CheckRecord(id=...)``, a function or exception taking a
  ``check_id``), as a literal, a module constant or an f-string;
- every string literal in those sources spelled as a check id of one of
  those families (``stop.run-cancelled``), wherever it is written, except
  the reference product's failpoint names and file names;
- every id built from a template (``f"delivery.{phase}"``), expanded from
  the code's own sets (the phases the stories download, the invariants the
  watch keeps, the lifecycle rules, the expectations). A template the code
  uses but :data:`TEMPLATES` does not expand is reported, so a new one
  cannot slip past;
- the checks the catalog's known findings name.
"""

from __future__ import annotations

import ast
import mimetypes
import re
from collections.abc import Callable, Iterable
from functools import cache
from importlib.metadata import entry_points
from importlib.util import find_spec
from pathlib import Path

from calibration.personas import PERSONA_CASES
from calibration.product_defects import DEFECT_CASES
from calibration.replay_scripts import REPLAY_CASES, SECRET_SCAN
from harness.checks.invariants import NAMES as INVARIANTS
from harness.checks.lifecycle import CHECK_IDS as LIFECYCLE_IDS
from harness.core import registry
from harness.running.expectations import EXPECTATIONS, check_id

ROOT = Path(__file__).resolve().parents[1]
ENTRY_POINT_GROUPS = ("everyday_evals.products", "everyday_evals.stories", "everyday_evals.agents")
"""The doors through which code that emits checks comes in, the built-ins' and the plug-ins' alike."""
NOT_JUDGING = ("harness/testbed", "harness/agents", "harness/replay")
"""The reference product, the agent runtime and the model replay: code under judgement or playing a part, whose
strings (failpoint names, tool names) are not checks."""

CHECK_ID = re.compile(r"^(?P<family>[a-z]+)\.[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)*$")
TEMPLATE_PREFIX = re.compile(r"^(?P<family>[a-z]+)\.")
ID_SHAPE = re.compile(r"^(?P<family>[a-z]+)\.[a-z0-9{]")
FAILPOINT, FAILPOINT_AT = "failpoint", "at"
ID_PARAMETER = "check_id"
"""A function that takes a parameter of this name emits (or raises) the check it names; one of this name makes ids."""

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
        for node in ast.walk(_parsed(path.read_text())):
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
    # A judge's assessment of a story's criterion: calibrated by the judges' own labelled cases (calibration/judges).
    "judge.{}": None,
}
"""Each id template the code builds, normalised (``{}`` for each placeholder), and the ids it expands to.

None: ids that are not the harness's own checks (see the comment beside it).
"""


def _template(node: ast.JoinedStr, known: frozenset[str]) -> str | None:
    """An f-string's shape with ``{}`` for each placeholder, when it starts with a check family."""
    shape = "".join(
        "{}" if isinstance(part, ast.FormattedValue) else str(part.value)
        for part in node.values
        if isinstance(part, (ast.FormattedValue, ast.Constant))
    )
    found = TEMPLATE_PREFIX.match(shape)
    if not found or found["family"] not in known or " " in shape:
        return None
    return shape


@cache
def _parsed(source: str) -> ast.Module:
    """One module's syntax tree, parsed once per process for the same text: the families, the templates and the ids
    are each read from every source file, and parsing is most of their cost. The trees are only read, never changed."""
    return ast.parse(source)


def scan(paths: Iterable[Path], known: frozenset[str]) -> tuple[set[str], set[str]]:
    """The literal check ids and the id templates of the ``known`` families in ``paths``' Python source."""
    literals, templates = set(), set()
    for path in paths:
        tree = _parsed(path.read_text())
        formatted = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
        formatted |= {id(name) for name in _failpoint_names(tree)}
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                shape = _template(node, known)
                if shape:
                    templates.add(shape)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in formatted:
                found = CHECK_ID.match(node.value)
                if found and found["family"] in known and not _file_name(node.value):
                    literals.add(node.value)
    return literals, templates


def _file_name(text: str) -> bool:
    """A file's name (``delivery.zip``, ``routine.html``): spelled like a check id, it names a file."""
    return mimetypes.guess_type(text)[0] is not None


def _failpoint_names(tree: ast.Module) -> list[ast.expr]:
    """The reference product's failpoint names (``failpoint("stop.signal", ...)``, ``@defect(..., at="stop.after")``):
    spelled like check ids, they name places in the product's code, never a check."""
    names: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if callee == FAILPOINT and node.args:
                names.append(node.args[0])
            names += [keyword.value for keyword in node.keywords if keyword.arg == FAILPOINT_AT]
    return names


def source_packages() -> dict[str, Path]:
    """Top-level package -> its folder, for the harness and every package an entry point of the project's doors
    names: the stories, the built-in product and every installed plug-in, whose checks are calibrated too."""
    names = {"harness"} | {
        entry.module.split(".")[0] for group in ENTRY_POINT_GROUPS for entry in entry_points(group=group)
    }
    specs = {name: find_spec(name) for name in sorted(names)}
    return {
        name: Path(next(iter(spec.submodule_search_locations)))
        for name, spec in specs.items()
        if spec is not None and spec.submodule_search_locations
    }


def _relative(path: Path, root: Path) -> Path:
    return path.relative_to(root) if path.is_relative_to(root) else path


def source_files(root: Path = ROOT) -> list[Path]:
    """Every module of those packages, without the standalone reproductions of findings (no harness code) and the
    files that name check ids without emitting them."""
    files = [path for folder in source_packages().values() for path in sorted(folder.rglob("*.py"))]
    return [
        path
        for path in files
        if _relative(path, root) not in NOT_EMITTING
        and "findings" not in _relative(path, root).parts[:-1]
        and not str(_relative(path, root)).startswith(NOT_JUDGING)
    ]


def _shape(node: ast.expr, constants: dict[str, str]) -> str | None:
    """The text an id argument spells: a literal, a module constant it names, or an f-string with ``{}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.Attribute):
        return constants.get(node.attr)
    if isinstance(node, ast.JoinedStr):
        return "".join(
            "{}" if isinstance(part, ast.FormattedValue) else str(getattr(part, "value", "")) for part in node.values
        )
    return None


def _id_position(function: ast.FunctionDef) -> int | None:
    """Where a function takes the check id it emits (None: it takes none)."""
    names = [argument.arg for argument in (*function.args.posonlyargs, *function.args.args)]
    if ID_PARAMETER not in names:
        return None
    return names.index(ID_PARAMETER) - (names[0] in ("self", "cls"))


def _emitters(tree: ast.Module) -> dict[str, int | None]:
    """Callables of one module that emit a check: name -> the position of its id argument (None: keyword only).

    A function with a ``check_id`` parameter, a class whose ``__init__`` has
    one (an exception that fails the check it names), and the record itself.
    """
    found: dict[str, int | None] = {"CheckRecord": None}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and (position := _id_position(node)) is not None:
            found[node.name] = position
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    if (position := _id_position(item)) is not None:
                        found[node.name] = position
    return found


def _module_constants(tree: ast.Module) -> dict[str, str]:
    return {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _id_shapes(tree: ast.Module, emitters: dict[str, int | None], constants: dict[str, str]) -> list[str | None]:
    """What each call to an emitter names as its id, and what each id-making function returns."""
    shapes: list[str | None] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == ID_PARAMETER:
            shapes += [_shape(r.value, constants) for r in ast.walk(node) if isinstance(r, ast.Return) and r.value]
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name not in emitters:
            continue
        shapes += [_shape(keyword.value, constants) for keyword in node.keywords if keyword.arg in ("id", ID_PARAMETER)]
        position = emitters[name]
        if position is not None and len(node.args) > position:
            shapes.append(_shape(node.args[position], constants))
    return shapes


def check_families(paths: Iterable[Path]) -> frozenset[str]:
    """The family of every id the code hands an emitter (see :func:`_emitters`), as a literal, a module constant or
    an f-string, or returns from a function named ``check_id``: the families are read, never listed by hand."""
    trees = [_parsed(path.read_text()) for path in paths]
    emitters: dict[str, int | None] = {}
    constants: dict[str, str] = {}
    for tree in trees:
        emitters |= _emitters(tree)
        constants |= _module_constants(tree)
    shapes = [shape for tree in trees for shape in _id_shapes(tree, emitters, constants)]
    return frozenset(found["family"] for shape in shapes if shape and (found := ID_SHAPE.match(shape)))


def families(root: Path = ROOT) -> frozenset[str]:
    """Every family a check id of the harness or a plug-in starts with: a literal spelled ``<family>.<name>`` is one."""
    return check_families(source_files(root))


def unknown_templates(root: Path = ROOT) -> set[str]:
    """Templates the code builds ids from that :data:`TEMPLATES` does not know how to expand."""
    files = source_files(root)
    return scan(files, check_families(files))[1] - TEMPLATES.keys()


def emitted_check_ids(root: Path = ROOT) -> set[str]:
    """Every check id the harness can emit, from its code (see the module's docstring)."""
    files = source_files(root)
    literals, templates = scan(files, check_families(files))
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


def uncalibrated(ids: Iterable[str], rows: Iterable[Row]) -> list[str]:
    """The ids no row fails on, sorted."""
    calibrated = {check for _, checks in rows for check in checks}
    return sorted(set(ids) - calibrated)
