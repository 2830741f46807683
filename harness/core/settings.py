"""The settings of one `harness run`, built and validated once.

`harness run` turns its command line into one RunSettings; pytest and every
xdist worker receive it whole as JSON in one option (`--run-settings`), so a
flag is declared in exactly one place: a field here. The CLI derives its
`run` flags from these fields (``flag`` in the field's metadata), the plugin
parses the JSON back, and the attempt reads the fields. A bad value is refused
by the same validation on the command line and in every worker.
"""

from __future__ import annotations

import re
import secrets as random_tokens
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.core.output_paths import file_problem, folder_problem

# The one pytest option that carries a run's settings, as JSON, to pytest and to every xdist worker.
SETTINGS_OPTION = "--run-settings"


def new_campaign_id() -> str:
    """Time-ordered and unique across machines, so merged results never collide."""
    return f"{datetime.now().strftime('%Y%m%dT%H%M%S')}-{random_tokens.token_hex(3)}"


def flag(name: str, text: str, metavar: str | None = None) -> dict[str, Any]:
    """Field metadata that makes a field a `harness run` flag (read by the CLI's parser builder)."""
    return {"flag": name, "metavar": metavar, "help": text}


CAMPAIGN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
"""A campaign id names a folder under the results folder: one plain name, never a path out of it."""
HARD_STOP_MAX_CENTS = 1_000_000_000
"""Ten million dollars: more than any test run should spend, and within every product's integer columns."""


class RunSettings(BaseModel):
    """Everything a run needs; each `harness run` flag is one field (with ``flag`` metadata).

    Frozen, because the controller and every worker must see the same values;
    the campaign id is drawn once, where the object is built, so every worker
    writes into the same campaign.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    cells: tuple[str, ...] = Field(default=(), description="execution ids to run, from the selection flags")
    campaign: str = Field(
        default_factory=new_campaign_id,
        min_length=1,
        json_schema_extra=flag("--campaign", "campaign id (default: a new time-ordered id)"),
    )
    results: Path = Field(
        default=Path("results"), json_schema_extra=flag("--results", "evidence folder (default results/)")
    )
    max_parallel: Annotated[int, Field(ge=1)] = Field(
        default=1, json_schema_extra=flag("--max-parallel", "cells run at once, each with its own product", "N")
    )
    max_automatic_retries: Annotated[int, Field(ge=0, le=1)] = Field(
        default=0,
        json_schema_extra=flag(
            "--max-automatic-retries", "retry a cell once after an infrastructure failure only (0 or 1, default 0)", "N"
        ),
    )
    attempts: Annotated[int, Field(ge=1)] | None = Field(
        default=None,
        json_schema_extra=flag(
            "--attempts",
            "independent attempts per cell (epochs, not retries; default 1); paid cells repeat only when it is named",
            "K",
        ),
    )
    resume: str | None = Field(
        default=None,
        json_schema_extra=flag(
            "--resume",
            "run only what campaign CAMPAIGN is missing: cells, attempts short of K, attempts that ended in an"
            " infrastructure failure or were interrupted",
            "CAMPAIGN",
        ),
    )
    headed: bool = Field(default=False, json_schema_extra=flag("--headed", "show the browser"))
    junitxml: Path | None = Field(default=None, json_schema_extra=flag("--junitxml", "write junit XML here"))
    scripted_persona: str | None = Field(
        default=None,
        json_schema_extra=flag("--scripted-persona", "calibration: give the scripted agent a faulty persona"),
    )
    replay_script: str | None = Field(
        default=None,
        json_schema_extra=flag(
            "--replay-script", "calibration: the replay cells' model follows this (misbehaving) script", "NAME"
        ),
    )
    max_cost_cents: Annotated[int, Field(ge=0)] | None = Field(
        default=None,
        json_schema_extra=flag(
            "--max-cost-cents", "start no further paid cell once the campaign has spent N real cents", "N"
        ),
    )
    product_defect: str | None = Field(
        default=None,
        min_length=1,
        json_schema_extra=flag("--product-defect", "calibration: switch on a named product defect", "NAME"),
    )
    hard_stop_cents: Annotated[int, Field(ge=0, le=HARD_STOP_MAX_CENTS)] | None = Field(
        default=None,
        json_schema_extra=flag(
            "--hard-stop-cents",
            "the company's and the lead agent's budget in each product (default: the case's, else the product's own)",
            "N",
        ),
    )
    agent_time_limit_s: Annotated[float, Field(gt=0)] | None = Field(
        default=None,
        json_schema_extra=flag(
            "--agent-time-limit", "wall-clock seconds per live agent run (default: the product's own)", "SECONDS"
        ),
    )
    deadline_s: Annotated[float, Field(gt=0)] | None = Field(
        default=None,
        json_schema_extra=flag(
            "--deadline", "seconds each attempt may take (default: the cell's own, recorded in attempt.json)", "SECONDS"
        ),
    )
    record: bool = Field(
        default=False,
        json_schema_extra=flag(
            "--record", "keep each model exchange and the story's drawn inputs in a cassette in the attempt's package"
        ),
    )
    cassette: Path | None = Field(
        default=None,
        json_schema_extra=flag(
            "--cassette",
            "answer the agents from this cassette (a file, or an attempt folder holding one): no model is reached",
            "PATH",
        ),
    )
    pace_s: Annotated[float, Field(gt=0)] | None = Field(
        default=None, json_schema_extra=flag("--pace", "seconds per scripted agent step (> 0)", "SECONDS")
    )

    @field_validator("campaign", "resume")
    @classmethod
    def _campaign_is_a_plain_name(cls, campaign: str | None) -> str | None:
        if campaign is not None and not CAMPAIGN_ID.fullmatch(campaign):
            raise ValueError("a campaign id is one name of letters, digits, '.', '_' and '-' (not a path)")
        return campaign

    @field_validator("results")
    @classmethod
    def _results_can_be_a_folder(cls, results: Path) -> Path:
        problem = folder_problem(results)
        if problem:
            raise ValueError(problem)
        return results

    @field_validator("junitxml")
    @classmethod
    def _junitxml_can_be_a_file(cls, junitxml: Path | None) -> Path | None:
        problem = junitxml and file_problem(junitxml)
        if problem:
            raise ValueError(problem)
        return junitxml

    @model_validator(mode="after")
    def _record_or_replay(self) -> RunSettings:
        if self.record and self.cassette is not None:
            raise ValueError("--record and --cassette exclude each other: a replay spends nothing worth recording")
        return self

    def calibration_marks(self) -> dict[str, str]:
        """What makes an attempt a calibration diagnostic, kept out of the matrix and of promotion: its faulty
        persona, its product defect (recorded in the attempt's ``extra``)."""
        marks = {"scripted_persona": self.scripted_persona, "product_defect": self.product_defect}
        return {name: value for name, value in marks.items() if value}

    @property
    def epochs(self) -> int:
        """Independent attempts per cell: only what ``--attempts`` names, so no default ever repeats a paid cell."""
        return self.attempts or 1

    @property
    def product_defects(self) -> tuple[str, ...]:
        """The product defects a driver switches on: none in every normal run, one in a calibration cell."""
        return (self.product_defect,) if self.product_defect else ()


def run_flags() -> dict[str, dict[str, Any]]:
    """field name -> its flag metadata, for every RunSettings field a person sets on the command line."""
    flags = {}
    for name, field in RunSettings.model_fields.items():
        extra = field.json_schema_extra
        if isinstance(extra, dict) and "flag" in extra:
            flags[name] = extra
    return flags
