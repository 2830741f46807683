"""Failpoints: inert unless a defect arms them, each defect at a point the product really calls, and a product
that imports nothing of the defects (the import graph is read from the source, not from a list kept by hand)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import harness.testbed
from harness.testbed import defects, failpoints
from harness.testbed.failpoints import failpoint

PRODUCT = Path(harness.testbed.__file__).parent
POINT_CALL = re.compile(r"""failpoint\(\s*"([a-z.-]+)\"""")


@pytest.fixture(autouse=True)
def disarmed() -> Iterator[None]:
    failpoints.disarm_all()
    yield
    failpoints.disarm_all()


def product_modules() -> list[Path]:
    return [p for p in PRODUCT.rglob("*.py") if "defects" not in p.relative_to(PRODUCT).parts]


def test_an_unarmed_point_returns_its_value_unchanged() -> None:
    value = object()
    assert failpoint("nowhere", value, context=1) is value
    assert failpoint("nowhere") is None


def test_armed_actions_act_in_the_order_armed_with_the_context() -> None:
    failpoints.arm("p", lambda value, n: value + n)
    failpoints.arm("p", lambda value, n: value * n)
    assert failpoint("p", 1, n=3) == 12
    assert failpoint("other", 1, n=3) == 1


def test_configure_arms_exactly_the_defects_switched_on() -> None:
    assert defects.configure(["message-stored-crlf"]) == ["message-stored-crlf"]
    assert failpoint("message.body", "a\nb") == "a\r\nb"
    defects.configure([])
    assert failpoint("message.body", "a\nb") == "a\nb"


def test_an_unknown_defect_is_refused() -> None:
    with pytest.raises(defects.UnknownDefect, match="no-such-defect"):
        defects.configure(["no-such-defect"])


def test_every_defect_acts_at_a_point_the_product_calls() -> None:
    called = {name for path in product_modules() for name in POINT_CALL.findall(path.read_text())}
    declared = {defect.point for defect in defects.REGISTRY.values()}
    assert declared - called == set(), "defects armed at points no product code calls"


def test_the_product_imports_nothing_of_the_defects() -> None:
    importers = []
    for path in product_modules():
        if path.name in ("app.py", "__main__.py"):  # where the controller switches defects on
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import | ast.ImportFrom) else []
            if any("defects" in name.split(".") for name in names):
                importers.append(str(path.relative_to(PRODUCT)))
    assert importers == []


def test_the_failpoint_module_imports_nothing_of_the_product() -> None:
    tree = ast.parse(Path(failpoints.__file__).read_text())
    relative = [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level]
    absolute = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("testbed")
    ]
    assert relative == absolute == []
