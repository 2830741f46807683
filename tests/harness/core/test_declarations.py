"""A product's declaration names only what exists: a misspelt capability or cell pattern would silently change no cell."""

from __future__ import annotations

from fnmatch import fnmatchcase

import pytest

from harness.core import registry
from harness.core.catalog import ProductDeclaration

DECLARATIONS = registry.products()


@pytest.mark.parametrize("declaration", DECLARATIONS, ids=lambda d: d.name)
def test_every_capability_named_is_one_a_story_needs(declaration: ProductDeclaration) -> None:
    needed = {need for case in registry.cases() for need in case.needs}
    named = {*declaration.capabilities, *declaration.lacks}
    assert sorted(named - needed) == [], "declared or lacking, but no installed story needs it"


@pytest.mark.parametrize("declaration", DECLARATIONS, ids=lambda d: d.name)
def test_every_cell_pattern_matches_a_cell_of_the_product(declaration: ProductDeclaration) -> None:
    profiles = {
        profile.name
        for suite in registry.catalog().suites
        if suite.product is not None and suite.product.name == declaration.name
        for profile in suite.profiles
    }
    cells = [f"{profile}.{case.name}" for profile in profiles for case in registry.cases()]
    patterns = list(declaration.no_cell)
    assert [p for p in patterns if not any(fnmatchcase(cell, p) for cell in cells)] == []
