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
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.core.output_paths import file_problem, folder_problem
from harness.core.pairing import PairSpec

# The one pytest option that carries a run's settings, as JSON, to pytest and to every xdist worker.
SETTINGS_OPTION = "--run-settings"


def new_campaign_id() -> str:
    """Time-ordered and unique across machines, so merged results never collide."""
    return f"{datetime.now().strftime('%Y%m%dT%H%M%S')}-{random_tokens.token_hex(3)}"


def flag(name: str, text: str, metavar: str | None = None) -> dict[str, Any]:
    """Field metadata that makes a field a `harness run` flag (read by the CLI's parser builder)."""
    return {"flag": name, "metavar": metavar, "help": text}


RerunReason = Literal["missing", "infrastructure_failed", "unexercised", "skipped"]
"""What a resume may play again: what never ended, and endings that say nothing about the product or agent.
A pass or a failure is final: playing failures again until they pass would bias every figure."""

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
            "play campaign CAMPAIGN's own plan again for its attempt slots that are missing (never ended with a"
            " verdict) or ended as --rerun names; finished attempts stay on disk",
            "CAMPAIGN",
        ),
    )
    rerun: tuple[RerunReason, ...] | None = Field(
        default=None,
        json_schema_extra=flag(
            "--rerun",
            "with --resume: which slots to play again, comma-separated from missing, infrastructure_failed,"
            " unexercised, skipped (default missing); a pass or a failure is never played again",
            "WHAT",
        ),
    )
    pair: PairSpec | None = Field(
        default=None,
        json_schema_extra=flag(
            "--pair",
            "a paired run: play each attempt once per variant, back to back, with the same inputs (for example"
            " product-defect=,download-other-bytes); `harness compare CAMPAIGN` then compares the recorded pairs",
            "SETTING=BASE,CANDIDATE",
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

    engine: Literal["local", "ray"] = Field(
        default="local",
        json_schema_extra=flag(
            "--engine", "where cells run: local (this machine, default) or ray (one task per cell on a Ray cluster)"
        ),
    )
    ray_address: str | None = Field(
        default=None,
        json_schema_extra=flag(
            "--ray-address",
            "the Ray cluster --engine ray joins (default: RAY_ADDRESS, else a running local one)",
            "ADDR",
        ),
    )
    node: str | None = Field(
        default=None,
        description="the cluster node that plays these cells (--engine ray sets it on the node; named in provenance)",
    )
    retry_of: str | None = Field(
        default=None,
        description="the attempt the first attempt played here retries (--engine ray: a cell a lost node held);"
        " that retry is the epoch's one automatic retry",
    )
    spent_elsewhere_cents: Annotated[int, Field(ge=0)] = Field(
        default=0,
        description="real cents the campaign spent outside this results folder (--engine ray: the cluster's ledger),"
        " counted by --max-cost-cents",
    )

    @field_validator("campaign", "resume")
    @classmethod
    def _campaign_is_a_plain_name(cls, campaign: str | None) -> str | None:
        if campaign is not None and not CAMPAIGN_ID.fullmatch(campaign):
            raise ValueError("a campaign id is one name of letters, digits, '.', '_' and '-' (not a path)")
        return campaign

    @field_validator("rerun", mode="before")
    @classmethod
    def _rerun_from_text(cls, rerun: Any) -> Any:
        """``missing,infrastructure_failed`` as typed; a list as the plan's JSON holds it."""
        return tuple(part.strip() for part in rerun.split(",") if part.strip()) if isinstance(rerun, str) else rerun

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

    @model_validator(mode="after")
    def _rerun_only_a_resume(self) -> RunSettings:
        if self.rerun is not None and self.resume is None:
            raise ValueError("--rerun says what a --resume plays again: name --resume CAMPAIGN beside it")
        if self.pair is not None and getattr(self, self.pair.setting) is not None:
            raise ValueError(f"--pair sets {self.pair.flag} for each variant: do not name --{self.pair.flag} beside it")
        return self

    @property
    def reruns(self) -> frozenset[str]:
        """What this resume plays again (missing slots when --rerun is not named)."""
        return frozenset(self.rerun or ("missing",))

    def variants(self) -> list[tuple[str, RunSettings]]:
        """(label, settings) of each variant a slot is played with: one unlabelled, or a pair's base then candidate."""
        if self.pair is None:
            return [("", self)]
        return [
            (label, RunSettings.model_validate({**self.model_dump(), "pair": None, self.pair.setting: value}))
            for label, value in self.pair.values()
        ]

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
