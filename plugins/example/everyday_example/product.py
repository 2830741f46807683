"""The product door: what this product is, where it runs, what its driver can do and which facts it exposes.

A declaration is data, read when the catalog is built; its ``driver`` is
imported only when one of its cells runs. Declare only the capabilities the
driver really serves: a story needing anything else gets no cell here, and
``harness list --not-applicable`` says why.
"""

from harness.core.catalog import Environment, ProductDeclaration, ProductSuites

SMALLEST = "the template shows the smallest driver; a real one declares what its product can do"

PRODUCT = ProductDeclaration(
    name="example",
    title="the example product",
    driver="everyday_example.driver:DRIVER",
    environments=(
        Environment(name="example-local", product="example", description="The example product on loopback."),
    ),
    suites=ProductSuites(scripted="example-scripted"),
    capabilities=(),
    lacks={
        "hire-approval": "the template's product has one agent and no board",
        "agent-controls": "the template's product has no agent controls",
        "stop": SMALLEST,
        "routines": SMALLEST,
        "budget-pause": SMALLEST,
    },
    observes=("message-read", "runner-identity", "receipts"),
)
