"""The driver seam: defaults a driver may keep, capabilities refused by name, and declarations the code serves."""

from __future__ import annotations

import pytest

from harness.core.registry import product
from harness.products import product_driver
from harness.products.api import ProductApi
from harness.products.base import ProductDriver
from harness.products.capabilities import CAPABILITY_MEMBERS, Lacks, overridden, unserved
from harness.products.fake import DRIVER as FAKE
from harness.products.testbed.api import ApiClient


def test_a_driver_that_writes_four_members_is_a_driver() -> None:
    assert overridden(type(FAKE), ProductDriver) == {"start_instance", "task_list", "task_page"}
    assert FAKE.version() is None and FAKE.published_assets() == frozenset() and FAKE.secret_patterns == {}


def test_a_capability_the_product_lacks_is_refused_by_name() -> None:
    instance = FAKE.start_instance(0.0)
    with pytest.raises(Lacks, match="no cell: fake lacks hiring"):
        FAKE.hire_form(None, instance.base_url)
    with pytest.raises(Lacks, match="no cell: the fake product lacks routines"):
        instance.api.deliver_webhook(1, "d-1")
    assert not FAKE.serves("hiring") and instance.api.interactions() == [] == instance.api.connections()


def test_every_capability_member_is_a_member_of_the_seam() -> None:
    members = {m for names in CAPABILITY_MEMBERS.values() for m in names}
    assert members <= set(dir(ProductDriver)) | set(dir(ProductApi))


def test_the_testbed_serves_every_capability_it_declares() -> None:
    served = overridden(type(product_driver("testbed")), ProductDriver) | overridden(ApiClient, ProductApi)
    assert unserved(product("testbed").capabilities, served) == {}


def test_a_declared_capability_the_code_does_not_serve_is_named() -> None:
    served = overridden(type(FAKE), ProductDriver)
    assert unserved(("hiring", "stop"), served) == {"hiring": ["hire_form"]}
