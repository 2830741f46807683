"""README's story table says, for each product and environment, which suites give the story cells: read from the catalog.

A column per product's environment (the testbed's runners on the host and in a
container, Paperclip, vibe-kanban): the kinds of suite (scripted, replay, paid)
with at least one cell of the story there, or "no" (``harness list --all
--not-applicable`` gives the reason). A row may name two cases; both must then
have the same cells. The table lists this package's stories (``stories/``),
not those an installed plug-in adds.
"""

from __future__ import annotations

import re
from itertools import takewhile
from pathlib import Path

from harness.core import registry
from harness.core.catalog import Catalog

README = Path(__file__).resolve().parents[3] / "README.md"
COLUMNS = {  # column heading -> (product, environment)
    "testbed": ("testbed", "local"),
    "container": ("testbed", "container"),
    "Paperclip": ("paperclip", "paperclip-local"),
    "vibe-kanban": ("vibe-kanban", "vibe-kanban-local"),
}
KINDS = (("scripted", "scripted"), ("replay", "replay"), ("live", "paid"))


def cells_on(catalog: Catalog, case: str, product: str, environment: str) -> str:
    """The column's text for ``case`` on ``product`` in ``environment``: its suite kinds with cells, or "no"."""
    cells = [
        c
        for c in catalog.cells()
        if c.case.name == case and c.suite.product and c.suite.product.name == product
        if c.environment.name == environment
    ]
    suites = {cell.suite.name for cell in cells}
    declared = registry.product(product).suites
    kinds = [word for field, word in KINDS if getattr(declared, field) in suites]
    return ", ".join(kinds) or "no"


def story_rows() -> list[list[str]]:
    """The rows of the table under "## The stories", split into cells."""
    text = README.read_text().split("## The stories", 1)[1].split("\n\n", 1)[1]
    lines = list(takewhile(lambda line: line.startswith("|"), text.splitlines()))
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


def test_the_story_table_has_a_column_per_product_environment() -> None:
    heading = story_rows()[0]
    assert heading[-len(COLUMNS) :] == list(COLUMNS)


def test_each_story_row_says_where_the_story_has_cells() -> None:
    catalog = registry.catalog()
    rows = story_rows()[2:]
    named = {name for row in rows for name in re.findall(r"`([a-z0-9-]+)`", row[0])}
    ours = {case.name for case in registry.cases() if case.story.startswith("stories.")}
    assert named == ours, "every story of stories/ has a row, and only those"
    wrong = []
    for row in rows:
        for name in re.findall(r"`([a-z0-9-]+)`", row[0]):
            want = [cells_on(catalog, name, *where) for where in COLUMNS.values()]
            if row[-len(COLUMNS) :] != want:
                wrong.append(f"{name}: the row says {row[-len(COLUMNS) :]}, the catalog gives {want}")
    assert not wrong, "\n".join(wrong)
