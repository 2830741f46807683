"""Paperclip's driver and API serve every capability its declaration claims, and keep the defaults elsewhere."""

from __future__ import annotations

from everyday_paperclip.api import PaperclipApi
from everyday_paperclip.declaration import PRODUCT
from everyday_paperclip.driver import PaperclipDriver
from harness.products.api import ProductApi
from harness.products.base import ProductDriver
from harness.products.capabilities import overridden, unserved


def test_every_declared_capability_is_served() -> None:
    served = overridden(PaperclipDriver, ProductDriver) | overridden(PaperclipApi, ProductApi)
    assert unserved(PRODUCT.capabilities, served) == {}
