"""The suite's own rules, read from its source: tests that tell the truth.

- No test skips itself: a missing Docker engine, browser or CLI fails the run loudly, so a green run means
  every test ran.
- No test asserts a duration: on shared cores a timed assertion fails by the load, not by the code. Speed is a
  figure a benchmark prints (bench/). A deadline that ends a wait for a state (`time.monotonic() < deadline`)
  is not a duration and stays allowed.
- Every test asserts something that could fail: an `assert`, `pytest.raises`/`pytest.fail`, or a call of a
  helper of the suite that does (followed through helpers by name).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).parent
SKIPS = {"skip", "skipif", "importorskip", "xfail"}
CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns", "process_time"}
DURATION_WORDS = ("elapsed", "duration", "took", "serial")
FAILING_CALLS = {"raises", "fail", "warns", "deprecated_call"}
EXPECTATIONS = ("to_", "not_to_")


ROOT = TESTS.parent


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    """The project's tests and every plug-in's (plugins/<name>/tests)."""
    for path in sorted([*TESTS.rglob("*.py"), *ROOT.glob("plugins/*/tests/**/*.py")]):
        yield path, ast.parse(path.read_text(), filename=str(path))


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


def _called_name(call: ast.Call) -> str | None:
    function = call.func
    return (
        function.id
        if isinstance(function, ast.Name)
        else function.attr
        if isinstance(function, ast.Attribute)
        else None
    )


def _is_clock(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _called_name(node) in CLOCKS and isinstance(node.func, ast.Attribute)


def _is_duration(node: ast.AST) -> bool:
    """A clock reading minus something, or a name that says it holds a duration."""
    for part in ast.walk(node):
        if isinstance(part, ast.BinOp) and isinstance(part.op, ast.Sub) and _is_clock(part.left):
            return True
        if isinstance(part, ast.Name) and any(word in part.id.lower() for word in DURATION_WORDS):
            return True
    return False


def test_no_test_skips_itself() -> None:
    found = [
        _where(path, node)
        for path, module in _modules()
        if path.name != Path(__file__).name
        for node in ast.walk(module)
        if isinstance(node, ast.Attribute) and node.attr in SKIPS
    ]
    assert not found, f"a test must fail, not skip, when something it needs is missing: {found}"


def test_no_test_asserts_a_duration() -> None:
    found = [
        _where(path, node)
        for path, module in _modules()
        for node in ast.walk(module)
        if isinstance(node, ast.Assert) and _is_duration(node.test)
    ]
    assert not found, f"a duration belongs in a benchmark's printed figures, not in an assertion: {found}"


def _asserting_functions(modules: list[tuple[Path, ast.Module]]) -> set[str]:
    """Names of the suite's functions that assert, directly or through another such function (by name)."""
    calls: dict[str, set[str]] = {}
    asserting: set[str] = set()
    for _, module in modules:
        for node in ast.walk(module):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            called = {name for call in ast.walk(node) if isinstance(call, ast.Call) and (name := _called_name(call))}
            calls.setdefault(node.name, set()).update(called)
            expects = any(name.startswith(EXPECTATIONS) for name in called)  # Playwright's expect(...).to_...
            if any(isinstance(part, ast.Assert) for part in ast.walk(node)) or called & FAILING_CALLS or expects:
                asserting.add(node.name)
    grown = True
    while grown:
        more = {name for name, called in calls.items() if name not in asserting and called & asserting}
        asserting |= more
        grown = bool(more)
    return asserting


def test_every_test_asserts_something() -> None:
    modules = list(_modules())
    asserting = _asserting_functions(modules)
    found = [
        _where(path, node)
        for path, module in modules
        if path.name.startswith("test_")
        for node in module.body + [part for cls in module.body if isinstance(cls, ast.ClassDef) for part in cls.body]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
        and node.name not in asserting
    ]
    assert not found, f"each test must assert something that could fail: {found}"
