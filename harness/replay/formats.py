"""The prompt wordings of every installed product, read from the products' declarations (their plug-ins')."""

from __future__ import annotations

from functools import cache

from harness.core.prompt_formats import PromptFormat
from harness.core.registry import products


@cache
def prompt_formats() -> tuple[PromptFormat, ...]:
    """Each installed product's declared wording, in the registry's order of product names."""
    return tuple(product.prompts for product in products())
