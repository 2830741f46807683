"""The product driver: an isolated instance, its API client and page objects (:class:`harness.products.base.ProductDriver`).

To keep the template runnable anywhere, the example product *is* the
testbed started under another name: a real driver implements the same
protocol for its own product (start an instance on a free port with its own
data, an httpx client answering in ``harness.core.product_records``, page
objects with the product's selectors, the shapes of its credentials).
"""

from harness.products.testbed.driver import TestbedDriver


class ExampleDriver(TestbedDriver):
    __test__ = False

    name = "example"


DRIVER = ExampleDriver()
