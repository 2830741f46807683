"""One loose-rules case: a record set a misbehaving product leaves, the check that must fail it, and the old verdict.

The cases live beside the rules they exercise (:mod:`calibration.loose_rules`,
:mod:`calibration.loose_identity`); ``loose`` registers a case from its
function, so a case reads as one line above the record it builds.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from harness.core.records import CheckRecord

CLASSES = (
    "sampled once",
    "one bound for every story",
    "stated causes taken on trust",
    "the product's word for identity and delivery",
    "timing assumptions",
    "vacuous truth",
    "one product's vocabulary",
    "keyword matchers",
    "unmetered is not failed, budgets without an upper bound",
    "containment read narrowly",
)


class LooseCase(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    name: str
    loose_class: str
    expected_check: str
    was: str
    judge: Callable[[], list[CheckRecord]]


def loose(loose_class: int, expected_check: str, was: str) -> Callable[[Callable[[], list[CheckRecord]]], LooseCase]:
    """Make the decorated function a case of class ``loose_class`` (1-based, as the issue numbers them), named
    after the function."""

    def case(judge: Callable[[], list[CheckRecord]]) -> LooseCase:
        name = judge.__name__.strip("_").replace("_", "-")
        return LooseCase(
            name=name, loose_class=CLASSES[loose_class - 1], expected_check=expected_check, was=was, judge=judge
        )

    return case
