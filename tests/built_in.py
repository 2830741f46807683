"""The catalog of this project's own stories and products: tests that spell out cells are not widened by a plug-in."""

from __future__ import annotations

from functools import cache

from harness.core import registry
from harness.core.catalog import Catalog

BUILT_IN_PRODUCTS = ("testbed", "paperclip")


@cache
def built_in_catalog() -> Catalog:
    """Every suite of the built-in products, holding only the built-in stories (``stories.*``)."""
    return Catalog(
        suites=tuple(
            suite.model_copy(update={"cases": tuple(c for c in suite.cases if c.story.startswith("stories."))})
            for suite in registry.catalog().suites
            if suite.product is not None and suite.product.name in BUILT_IN_PRODUCTS
        )
    )
