"""Product drivers, looked up by name: ``harness.products.<name>`` exposes ``DRIVER``.

Adding a product is adding one package here; nothing else in the harness
names a product. The protocol a driver implements is in :mod:`.base`.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterable
from functools import cache

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
    """The names of the driver packages beside this module."""
    return sorted(module.name for module in pkgutil.iter_modules(__path__) if module.ispkg)


@cache
def product_driver(name: str) -> ProductDriver:
    """The driver of product ``name``, imported on first use."""
    if name not in known_products():
        raise UnknownProduct(f"no product driver {name!r}; known: {', '.join(known_products())}")
    driver: ProductDriver = importlib.import_module(f"harness.products.{name}").DRIVER
    return driver


def warm_up(products: Iterable[str], many_instances: bool) -> None:
    """Begin each named product's background start-up (``ProductDriver.warm_up``), once per product."""
    for name in sorted(set(products)):
        product_driver(name).warm_up(many_instances)


def cool_down() -> None:
    """End every loaded driver's background helpers (``ProductDriver.cool_down``); a driver never loaded began none."""
    for name in known_products():
        if f"{__name__}.{name}" in sys.modules:
            product_driver(name).cool_down()
