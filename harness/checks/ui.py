"""What the page shows against what the product stored: rules over plain ids, for any product.

A person trusts the page, a story reads the API; a product whose page
renders something other than its records (a message twice, one missing)
misleads the person while every API check passes.
Each rule takes the stored facts and what a page object read off the page,
so it knows nothing about selectors or a product's records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from harness.core.records import CheckRecord

THREAD_CHECK = "ui.thread-matches-records"


def thread_matches_records(stored_ids: Sequence[str | int], shown_ids: Sequence[str | int]) -> CheckRecord:
    """The thread on the page shows each stored message exactly once (not twice, not missing).

    ``stored_ids``: the ids of the task's messages as the API returns them;
    ``shown_ids``: for every thread item the page renders that carries a
    stored message's text, that message's id, duplicates included. The page
    seam finds items by a stored message's text, so an item that matches no
    stored message is never read and an id outside ``stored_ids`` is not
    judged here.
    """
    stored = [str(i) for i in stored_ids]
    shown = Counter(str(i) for i in shown_ids)
    problems = [f"message {i} shown {shown[i]} times" for i in stored if shown[i] != 1]
    ok = f"{len(stored)} stored message(s), each shown once"
    return CheckRecord(id=THREAD_CHECK, passed=not problems, detail="; ".join(problems) if problems else ok)
