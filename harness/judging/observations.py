"""What an attempt observed, kept so its checks can be judged again from the package alone.

Every check an attempt keeps comes from one observation, in order:

- a *rule call*: a pure rule (``module:function``) and the arguments it was
  given, saved as JSON through the rule's own type hints, so the rule of any
  later revision can be applied to the very same inputs;
- a *decided* check: one the harness decided while it ran (a timeout, a
  download it could not make), kept as it was: it names no rule to re-run.

A rule call is saved only when its arguments read back into the same checks
(the round trip is tried at once); otherwise it is kept as decided, so a
regrade of unchanged code reproduces every check exactly.

An argument that is a list the attempt wrote down item by item as it went
(the invariant watch's samples) is not copied into the rule call: the call
names the package file (JSON lines, one item a line) that holds it, once the
file is found to hold exactly the items the rule was given.
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any, Literal, get_type_hints

from pydantic import BaseModel, Field, TypeAdapter

from harness.core.records import CheckRecord

OBSERVATIONS_FILE = "observations.jsonl"
Origin = Literal["product", "harness", "derived"]
Rule = Callable[..., CheckRecord | Iterable[CheckRecord] | None]


class RuleNotFound(LookupError):
    """The rule an observation names is not in this revision of the code (renamed or removed)."""


class InputsMissing(LookupError):
    """The package holds none of an input the rule now needs (a package older than the rule)."""


class Observation(BaseModel):
    """One source of checks, as the package keeps it (one line of ``observations.jsonl``)."""

    seq: int
    kind: Literal["rule", "decided"]
    rule: str | None = Field(None, description="``module:qualname`` of the pure rule that judges ``args``")
    args: dict[str, Any] = Field(default_factory=dict, description="the rule's arguments, as JSON by its type hints")
    filed: dict[str, str] = Field(
        default_factory=dict,
        description="arguments kept in a package file of their own: parameter -> package path of its JSON lines",
    )
    origin: Origin = Field(
        "derived",
        description="product: read from the product; harness: seen by the harness itself; derived: computed from"
        " inputs named in ``sources``",
    )
    sources: list[str] = Field(default_factory=list, description="where the inputs were read: package paths, requests")
    check_ids: list[str] = Field(default_factory=list, description="the checks this observation gave when it was made")
    decided: list[CheckRecord] = Field(default_factory=list, description="the checks of a decided observation")
    evidence: list[str] = Field(default_factory=list, description="package paths every resulting check links to")
    promise: str | None = Field(None, description="the product promise every resulting check holds it to")
    why_decided: str | None = Field(None, description="why a check that came from a rule is kept as decided")


def rule_path(rule: Rule) -> str:
    return f"{rule.__module__}:{rule.__qualname__}"


def load_rule(path: str) -> Rule:
    module, _, name = path.partition(":")
    try:
        found: Any = importlib.import_module(module)
        for part in name.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as error:
        raise RuleNotFound(f"rule {path} is not in this revision: {error}") from error
    return found  # type: ignore[no-any-return]


@cache
def _adapters(rule: Rule) -> dict[str, TypeAdapter[Any]]:
    hints = get_type_hints(rule)
    return {name: TypeAdapter(hints.get(name, Any)) for name in inspect.signature(rule).parameters}


def as_list(result: CheckRecord | Iterable[CheckRecord] | None) -> list[CheckRecord]:
    if result is None:
        return []
    return [result] if isinstance(result, CheckRecord) else list(result)


def saved_args(rule: Rule, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments by parameter name, as JSON through the rule's type hints."""
    bound = inspect.signature(rule).bind(*args, **kwargs)
    adapters = _adapters(rule)
    return {name: adapters[name].dump_python(value, mode="json") for name, value in bound.arguments.items()}


def filed_lines(folder: Path, path: str) -> list[Any] | None:
    """The items of a filed argument, one JSON line each; None when the package holds no such file (or a line is
    torn: a list cut short is not the list the rule was given)."""
    try:
        return [json.loads(line) for line in (folder / path).read_text().splitlines() if line.strip()]
    except (OSError, ValueError):
        return None


def with_filed(observation: Observation, folder: Path) -> dict[str, Any]:
    """The rule call's arguments, with each filed one read back from the package."""
    args = dict(observation.args)
    for name, path in observation.filed.items():
        items = filed_lines(folder, path)
        if items is None:
            raise InputsMissing(f"the package holds no readable {path}")
        args[name] = items
    return args


def apply(rule: Rule, args: dict[str, Any]) -> list[CheckRecord]:
    """The rule's checks on saved arguments (validation errors propagate: the caller names them)."""
    adapters = _adapters(rule)
    if unknown := sorted(set(args) - set(adapters)):
        raise InputsMissing(f"{rule_path(rule)} takes no {', '.join(unknown)} any more")
    parameters = inspect.signature(rule).parameters
    if missing := [n for n, p in parameters.items() if n not in args and p.default is inspect.Parameter.empty]:
        raise InputsMissing(f"the package holds no {', '.join(missing)}")
    values = {name: adapters[name].validate_python(value) for name, value in args.items()}
    return as_list(rule(**values))


def call_and_keep_inputs(rule: Rule, *args: Any, **kwargs: Any) -> tuple[list[CheckRecord], dict[str, Any] | str]:
    """The rule's checks now, and its saved arguments; or, when they would not judge the same again, why not."""
    checks = as_list(rule(*args, **kwargs))
    try:
        saved = saved_args(rule, args, kwargs)
        again = apply(rule, saved)
    except Exception as error:  # noqa: BLE001  any input that does not survive the round trip is kept as decided
        return checks, f"its inputs cannot be saved: {type(error).__name__}: {str(error).splitlines()[0][:200]}"
    if again != checks:
        return checks, "its saved inputs judge differently from the live ones"
    return checks, saved


class Judgement(BaseModel):
    """A rule's checks on the inputs it was given now, with what the package keeps of the call."""

    checks: list[CheckRecord]
    rule: str
    args: dict[str, Any] | None = None
    why_decided: str | None = None
    origin: Origin = "derived"
    sources: list[str] = Field(default_factory=list)
    filed: dict[str, str] = Field(default_factory=dict, description="arguments the package keeps in files of their own")

    def kept_in(self, parameter: str, path: str) -> Judgement:
        """The same judgement, its ``parameter`` kept by the package in ``path`` (JSON lines, one item a line)."""
        return self.model_copy(update={"filed": {**self.filed, parameter: path}})

    def reading(self, *sources: str, origin: Origin = "derived") -> Judgement:
        """The same judgement, naming where its inputs were read (package paths, requests) and their origin."""
        return self.model_copy(update={"sources": [*self.sources, *sources], "origin": origin})


def filed_in(judgement: Judgement, folder: Path) -> Judgement:
    """The judgement as the package keeps it: each argument it names a file for is left out of the call where the
    file holds exactly its items, and stays in the call (the file unnamed) where it does not."""
    if not judgement.filed:
        return judgement
    if judgement.args is None:
        return judgement.model_copy(update={"filed": {}})
    args, filed = dict(judgement.args), {}
    for name, path in judgement.filed.items():
        if name in args and filed_lines(folder, path) == args[name]:
            del args[name]
            filed[name] = path
    return judgement.model_copy(update={"args": args, "filed": filed})


def judge(rule: Rule, *args: Any, **kwargs: Any) -> Judgement:
    """Apply ``rule`` now and keep its inputs, so the package can be judged again by a later revision of it."""
    checks, kept = call_and_keep_inputs(rule, *args, **kwargs)
    if isinstance(kept, str):
        return Judgement(checks=checks, rule=rule_path(rule), why_decided=kept)
    return Judgement(checks=checks, rule=rule_path(rule), args=kept)


def decided(checks: Iterable[CheckRecord], why: str = "decided while the attempt ran") -> Judgement:
    """Checks the harness decided itself while it ran: kept as they are, never judged again."""
    return Judgement(checks=list(checks), rule="", why_decided=why, origin="harness")
