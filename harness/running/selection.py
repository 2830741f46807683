"""Turning what a user typed into an ordered list of cells.

The rules are the ones a user expects from a command line, plus one that
protects the budget:

- repeating one dimension widens it (``--case a --case b``: a OR b);
- different dimensions narrow (``--profile p --case c``: p AND c);
- ``--id`` stands alone; it accepts a full execution ID or a short case ID;
- cells of a manual-only (paid) suite are selected only when that suite is
  named with ``--suite`` or the cell's exact execution ID is given, never by
  ``--all``, a profile, an environment or a case selector.

The result is sorted by execution ID so every machine sees the same order,
which is what makes ``--shard i/n`` a partition.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from harness.core import registry
from harness.core.catalog import LOCAL, SCRIPTED_SUITE, Catalog, Cell
from harness.core.profiles import SCRIPTED

SELECTOR_FLAGS = "--all, --suite, --profile, --environment, --case or --id"


class SelectionError(ValueError):
    """A selection that cannot be honoured; its message is one line a user can act on."""


def resolve_short_id(
    text: str,
    catalog: Catalog | None = None,
    suite: str = SCRIPTED_SUITE,
    profile: str = SCRIPTED.name,
    environment: str = LOCAL,
) -> Cell:
    """The cell an ``--id`` names: a full execution ID exactly, or a case name as the free local cell.

    Short IDs exist so ``make story ID=build-revise`` needs no knowledge of
    suites and profiles, and they resolve to the scripted cell so that a short
    ID can never spend money.
    """
    catalog = catalog or registry.catalog()
    by_id = {cell.execution_id: cell for cell in catalog.cells()}
    if text in by_id:
        return by_id[text]
    short = f"{suite}.{profile}.{environment}.{text}"
    if "." not in text and short in by_id:
        return by_id[short]
    for cell, reason in catalog.not_applicable():
        if text in (cell.execution_id, short):
            raise SelectionError(f"{cell.execution_id} is not applicable: {reason}")
    close = difflib.get_close_matches(text, [*catalog.names("cases"), *by_id], n=3, cutoff=0.6)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    raise SelectionError(
        f"unknown id '{text}'; {hint}a short id is a case ({', '.join(catalog.names('cases'))}); "
        "`harness list --all` shows every full execution id"
    )


def not_applicable(
    all: bool = False,  # noqa: A002 - mirrors the --all flag one to one
    suites: Sequence[str] = (),
    profiles: Sequence[str] = (),
    environments: Sequence[str] = (),
    cases: Sequence[str] = (),
    catalog: Catalog | None = None,
) -> list[tuple[Cell, str]]:
    """The combinations the same selectors name that make no cell, each with why (manual suites included)."""
    dimensions = {"suites": suites, "profiles": profiles, "environments": environments, "cases": cases}
    if not all and not any(dimensions.values()):
        raise SelectionError(f"nothing selected; pass {SELECTOR_FLAGS.removesuffix(' or --id')} or --all")
    catalog = catalog or registry.catalog()
    return [(cell, reason) for cell, reason in catalog.not_applicable() if _matches(cell, **dimensions)]


def parse_shard(text: str) -> tuple[int, int]:
    """``"i/n"`` (1-based) to ``(i, n)``; anything else is a SelectionError."""
    index_text, sep, count_text = text.partition("/")
    try:
        index, count = int(index_text), int(count_text)
    except ValueError:
        index = count = 0
    if not sep or count < 1 or not 1 <= index <= count:
        raise SelectionError(f"malformed shard '{text}'; expected i/n with 1 <= i <= n, e.g. 1/4")
    return index, count


def shard_cells(cells: Sequence[Cell], shard: str) -> list[Cell]:
    """Round-robin over the sorted selection: every cell lands in exactly one shard, shards stay balanced.

    Every machine of a campaign passes the same selectors, so they all sort the
    same list and take disjoint slices of it.
    """
    index, count = parse_shard(shard)
    ordered = sorted(cells, key=lambda cell: cell.execution_id)
    return ordered[index - 1 :: count]


def _check_known(values: Iterable[str], dimension: str, catalog: Catalog) -> None:
    valid = catalog.names(dimension)
    for value in values:
        if value not in valid:
            raise SelectionError(f"unknown {dimension[:-1]} '{value}'; valid {dimension}: {', '.join(valid)}")


def _matches(
    cell: Cell, suites: Sequence[str], profiles: Sequence[str], environments: Sequence[str], cases: Sequence[str]
) -> bool:
    """AND across dimensions, OR within one; an empty dimension does not constrain."""
    return all(
        not wanted or name in wanted
        for wanted, name in (
            (suites, cell.suite.name),
            (profiles, cell.profile.name),
            (environments, cell.environment.name),
            (cases, cell.case.name),
        )
    )


def _describe(**selectors: Sequence[str]) -> str:
    flags = {"suites": "--suite", "profiles": "--profile", "environments": "--environment", "cases": "--case"}
    return " ".join(f"{flags[key]} {value}" for key, values in selectors.items() for value in values)


def select(
    all: bool = False,  # noqa: A002 - mirrors the --all flag one to one
    suites: Sequence[str] = (),
    profiles: Sequence[str] = (),
    environments: Sequence[str] = (),
    cases: Sequence[str] = (),
    ids: Sequence[str] = (),
    shard: str | None = None,
    catalog: Catalog | None = None,
) -> list[Cell]:
    """The cells a selection names, sorted by execution ID, optionally cut to one shard.

    Raises SelectionError when no selector is given, when ``--id`` is mixed with
    other selectors, for unknown names, and when the selectors match nothing
    (an empty run that exits 0 would look like a pass).
    """
    catalog = catalog or registry.catalog()
    dimensions = {
        "suites": tuple(suites),
        "profiles": tuple(profiles),
        "environments": tuple(environments),
        "cases": tuple(cases),
    }
    if ids:
        if all or any(dimensions.values()):
            raise SelectionError(
                "--id stands alone; do not combine it with --all, --suite, --profile, --environment or --case"
            )
        resolved = {cell.execution_id: cell for cell in (resolve_short_id(text, catalog) for text in ids)}
        selected = sorted(resolved.values(), key=lambda cell: cell.execution_id)
    else:
        if not all and not any(dimensions.values()):
            raise SelectionError(f"nothing selected; pass {SELECTOR_FLAGS} (see 'harness list --all')")
        for dimension, values in dimensions.items():
            _check_known(values, dimension, catalog)
        matching = [cell for cell in catalog.cells() if _matches(cell, **dimensions)]
        # Manual suites come in only by name; a profile, case or --all must never spend money.
        selected = [cell for cell in matching if not cell.manual or cell.suite.name in dimensions["suites"]]
        if not selected:
            wanted = "--all" if all and not any(dimensions.values()) else _describe(**dimensions)
            manual = sorted({cell.suite.name for cell in matching if cell.manual})
            if manual:
                raise SelectionError(
                    f"{wanted} matches only paid cells of manual suite {', '.join(manual)}; "
                    f"name it with --suite {manual[0]} or pass an exact --id"
                )
            raise SelectionError(
                f"no cell matches {wanted}; see 'harness list --all' and 'harness list --suite <suite>'"
            )
    return shard_cells(selected, shard) if shard is not None else selected
