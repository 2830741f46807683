"""The metering check: every model call the model answered is on the product's record.

A replay cell's model server counts the calls it answered, as a provider
counts what it bills; the product's runs count the calls they metered. A
product that loses one (a report that died with a runner a Stop killed, say)
lets an agent spend what nobody sees, so it fails here, by name. More metered
than answered fails too: a call billed twice, or billed without ever reaching
the model, is spend nobody made. The two counts must be equal.
"""

from __future__ import annotations

from harness.core.records import CheckRecord

CALLS_METERED = "metering.calls-metered"


def calls_metered(answered: int, metered: int) -> CheckRecord:
    """Passed when the product metered exactly the calls the model server answered."""
    if metered == answered:
        detail = f"the model answered {answered} call(s); the product metered {metered}"
        return CheckRecord(id=CALLS_METERED, passed=True, detail=detail)
    off = (
        f"{answered - metered} unmetered" if metered < answered else f"{metered - answered} metered but never answered"
    )
    detail = f"the model answered {answered} call(s) but the product metered {metered}: {off}"
    return CheckRecord(id=CALLS_METERED, passed=False, detail=detail)
