"""Product drivers, looked up by name through the product door (:mod:`harness.core.registry`).

A product comes in as one package that declares itself (a
:class:`~harness.core.catalog.ProductDeclaration` registered in the
``everyday_evals.products`` entry-point group) and names its driver; nothing
else in the harness names a product. The base class a driver subclasses is
:class:`.base.ProductDriver`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from harness.core.registry import RegistryError, product, products
from harness.products.base import InstanceError, ProductDriver

__all__ = [
    "InstanceError",
    "ProductDriver",
    "UnknownProduct",
    "known_products",
    "product_driver",
    "warm_up",
    "cool_down",
]


class UnknownProduct(LookupError):
    """A cell names a product no driver exists for."""


def known_products() -> list[str]:
    """The names of every declared product."""
    return [declaration.name for declaration in products()]


def _driver_module(name: str) -> str:
    return product(name).driver.split(":")[0]


@cache
def product_driver(name: str) -> ProductDriver:
    """The driver of product ``name``, imported on first use."""
    try:
        module, attribute = product(name).driver.split(":")
    except RegistryError as error:
        raise UnknownProduct(str(error)) from None
    driver: ProductDriver = getattr(importlib.import_module(module), attribute)
    return driver


def warm_up(products_: Iterable[str], many_instances: bool) -> None:
    """Begin each named product's background start-up (``ProductDriver.warm_up``), once per product."""
    for name in sorted(set(products_)):
        product_driver(name).warm_up(many_instances)


def remove_leftovers(run_folder: Path, every_product: bool = False) -> None:
    """Each loaded driver that keeps things outside its run folder removes those of ``run_folder``'s instances;
    ``every_product``: import each driver to ask (the process that started them is gone, and loaded none)."""
    for name in known_products():
        if every_product or _driver_module(name) in sys.modules:
            product_driver(name).remove_leftovers(run_folder)


def cool_down() -> None:
    """End every loaded driver's background helpers (``ProductDriver.cool_down``); a driver never loaded began none."""
    for name in known_products():
        if _driver_module(name) in sys.modules:
            product_driver(name).cool_down()
