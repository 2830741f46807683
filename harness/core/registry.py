"""The doors: stories and products come in through entry-point groups, the built-ins the same way as plug-ins.

An installed distribution adds to the catalog by naming, in its entry points:

- ``everyday_evals.stories``: a module, or a package whose modules are
  scanned, each story module declaring ``CASE`` (a :class:`Case`) beside its
  ``story(journey)`` function;
- ``everyday_evals.products``: a :class:`ProductDeclaration` (``module:NAME``),
  which names the driver loaded when one of its cells runs.

This project's own stories and drivers are registered in its
``pyproject.toml`` exactly so. Suites are derived from the products: each
declares the suite its scripted, replay and live cells go in.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType

from harness.core.catalog import Case, Catalog, ProductDeclaration, Profile, Suite

STORIES_GROUP = "everyday_evals.stories"
PRODUCTS_GROUP = "everyday_evals.products"


class RegistryError(RuntimeError):
    """A plug-in that cannot be loaded or contradicts another: one line saying which and why."""


def _entry_points(group: str) -> list[EntryPoint]:
    found = sorted(entry_points(group=group), key=lambda ep: ep.name)
    if not found:
        raise RegistryError(f"no entry points in {group}: install the project (`make venv`) so its doors register")
    return found


def _load(entry: EntryPoint) -> object:
    try:
        return entry.load()
    except Exception as error:  # an outside package's import error is reported, not raised as ours
        raise RegistryError(f"{entry.group} {entry.name} ({entry.value}): {type(error).__name__}: {error}") from error


def _story_modules(root: ModuleType) -> Iterable[ModuleType]:
    if not hasattr(root, "__path__"):
        yield root
        return
    for info in sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name):
        if not info.ispkg and not info.name.startswith("_"):
            yield importlib.import_module(f"{root.__name__}.{info.name}")


def case_of(module: ModuleType) -> Case | None:
    """The case a story module declares, with ``story`` filled in; None for a module that is not a story."""
    case = getattr(module, "CASE", None)
    if case is None:
        return None
    if not isinstance(case, Case):
        raise RegistryError(f"{module.__name__}.CASE is a {type(case).__name__}, not a Case")
    if not callable(getattr(module, "story", None)):
        raise RegistryError(f"{module.__name__} declares CASE {case.name} but no story(journey) function")
    return case if case.story else case.model_copy(update={"story": module.__name__})


@cache
def cases() -> tuple[Case, ...]:
    """Every story's case, by name; two stories declaring one name is an error."""
    found: dict[str, Case] = {}
    for entry in _entry_points(STORIES_GROUP):
        root = _load(entry)
        if not isinstance(root, ModuleType):
            raise RegistryError(f"{STORIES_GROUP} {entry.name} must name a module or package, not {entry.value}")
        for module in _story_modules(root):
            if (case := case_of(module)) is None:
                continue
            if case.name in found and found[case.name].story != case.story:
                raise RegistryError(f"two stories declare case {case.name}: {found[case.name].story}, {case.story}")
            found[case.name] = case
    return tuple(found[name] for name in sorted(found))


@cache
def products() -> tuple[ProductDeclaration, ...]:
    """Every product declaration, by name."""
    declared: dict[str, ProductDeclaration] = {}
    for entry in _entry_points(PRODUCTS_GROUP):
        declaration = _load(entry)
        if not isinstance(declaration, ProductDeclaration):
            raise RegistryError(
                f"{PRODUCTS_GROUP} {entry.name} is a {type(declaration).__name__}, not a ProductDeclaration"
            )
        if declaration.name in declared:
            raise RegistryError(f"two products named {declaration.name}")
        declared[declaration.name] = declaration
    return tuple(declared[name] for name in sorted(declared))


def product(name: str) -> ProductDeclaration:
    """The declaration of product ``name``."""
    for declaration in products():
        if declaration.name == name:
            return declaration
    raise RegistryError(f"no product {name!r}; known: {', '.join(p.name for p in products())}")


def _suites(declaration: ProductDeclaration, all_cases: tuple[Case, ...]) -> list[Suite]:
    from harness.core.profiles import LIVE_PROFILES, SCRIPTED, replay_profiles

    names = {case.name for case in all_cases}
    if unknown := sorted({f.case for f in declaration.known_findings} - names):
        raise RegistryError(f"product {declaration.name}: known findings for cases no story declares: {unknown}")
    kinds: list[tuple[str | None, tuple[Profile, ...], bool, str]] = [
        (declaration.suites.scripted, (SCRIPTED,), False, "with the free scripted agent"),
        (
            declaration.suites.replay,
            replay_profiles(declaration.replay_clis),
            False,
            "with real agent CLIs against the local model replay (free): proves adapters and product, never a model",
        ),
        (declaration.suites.live, LIVE_PROFILES, True, "with real (paid) agents; runs only when named explicitly"),
    ]
    return [
        Suite(
            name=name,
            manual_only=manual,
            description=f"The everyday workflows on {declaration.title}, {how}.",
            profiles=profiles,
            environments=declaration.environments,
            cases=all_cases,
            known_findings=tuple(
                f for f in declaration.known_findings if any(f.applies_to(f.case, p.name) for p in profiles)
            ),
            product=declaration,
        )
        for name, profiles, manual, how in kinds
        if name is not None and profiles
    ]


@cache
def catalog() -> Catalog:
    """The catalog the doors make: every product's suites over every declared story."""
    all_cases = cases()
    return Catalog(suites=tuple(suite for p in products() for suite in _suites(p, all_cases)))
