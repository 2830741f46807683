"""The metering check: every model call the model answered is on the product's record.

A replay cell's model server counts the calls it answered, as a provider
counts what it bills; the product's runs count the calls they metered. A
product that loses one (a report that died with a runner a Stop killed, say)
lets an agent spend what nobody sees, so it fails here, by name. More metered
than answered fails too: a call billed twice, or billed without ever reaching
the model, is spend nobody made. The two counts must be equal.

The check is recorded for every cell whose agents call a model, never left
out: a driver that declares no per-run metering gets it as not observable
(decided before the run, by the declaration); one that declares metering but
whose count, or the harness's own, is missing fails it for want of evidence.
"""

from __future__ import annotations

from harness.core.records import CheckRecord

CALLS_METERED = "metering.calls-metered"


def calls_metered(answered: int | None, metered: int | None, declared: bool = True) -> CheckRecord:
    """Passed when the product metered exactly the calls the model server answered.

    ``declared``: the driver declares that the product meters each run's calls; ``answered`` and ``metered``:
    None when that count was not observed."""
    if not declared:
        return CheckRecord.not_observable(CALLS_METERED, "the product's driver declares no per-run metering of calls")
    if answered is None or metered is None:
        missing = [
            *(["the calls the model answered (the harness served none)"] if answered is None else []),
            *(["the calls the product metered"] if metered is None else []),
        ]
        detail = f"no evidence: the product declares metering, but no count of {' or '.join(missing)}"
        return CheckRecord(id=CALLS_METERED, passed=False, detail=detail)
    if metered == answered:
        detail = f"the model answered {answered} call(s); the product metered {metered}"
        return CheckRecord(id=CALLS_METERED, passed=True, detail=detail)
    off = (
        f"{answered - metered} unmetered" if metered < answered else f"{metered - answered} metered but never answered"
    )
    detail = f"the model answered {answered} call(s) but the product metered {metered}: {off}"
    return CheckRecord(id=CALLS_METERED, passed=False, detail=detail)
