"""A paired run's two variants: ``--pair SETTING=BASE,CANDIDATE`` names one run setting and its two values.

Each attempt slot is then played once per variant, back to back, with
everything else the same; the pair is recorded on both attempts, so a
comparison pairs only what was made a pair. Only settings that change what
the product or the agent does within one cell can be paired: a different
agent profile or product is a different cell.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

PAIRABLE = {
    "product-defect": "product_defect",
    "scripted-persona": "scripted_persona",
    "replay-script": "replay_script",
    "cassette": "cassette",
    "pace": "pace_s",
}
"""flag (without its dashes) -> the RunSettings field a variant sets."""


class PairSpec(BaseModel):
    """The setting two variants differ in and each one's value (None: the setting left unset)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    flag: str
    base: str | None
    candidate: str | None

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        """``product-defect=,download-other-bytes`` as typed; the plan's JSON object as written."""
        if not isinstance(value, str):
            return value
        flag, equals, values = value.partition("=")
        flag = flag.strip().removeprefix("--")
        if not equals or values.count(",") != 1:
            raise ValueError("write SETTING=BASE,CANDIDATE (an empty value leaves the setting unset)")
        if flag not in PAIRABLE:
            raise ValueError(f"{flag!r} cannot be paired; pairable: {', '.join(PAIRABLE)}")
        base, candidate = (part.strip() or None for part in values.split(","))
        if base == candidate:
            raise ValueError("the two variants are the same: a pair compares two different values")
        return {"flag": flag, "base": base, "candidate": candidate}

    @property
    def setting(self) -> str:
        return PAIRABLE[self.flag]

    def label(self, value: str | None) -> str:
        """A variant as the person typed it: ``product-defect=download-other-bytes``, ``product-defect=``."""
        return f"{self.flag}={value or ''}"

    def values(self) -> tuple[tuple[str, str | None], tuple[str, str | None]]:
        """(label, value) of the base variant, then of the candidate, in the order each pair plays them."""
        return (self.label(self.base), self.base), (self.label(self.candidate), self.candidate)
