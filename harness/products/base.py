"""The product driver seam: one base class a driver subclasses, writing only what its product does differently.

A story acts on a product through four things:

- an **instance**: an isolated copy of the product (own data, ports and
  processes) that can be started, have its controller stopped and started
  again, and be torn down leaving nothing behind (:class:`ProductInstance`);
- an **API** that answers in :mod:`harness.core.product_records`
  (:class:`harness.products.api.ProductApi`);
- **pages**: the task list and a task's page, as a person uses them in the
  browser (:mod:`harness.products.views`; selectors live in the driver's page
  objects, never in a story);
- the product's **credential shapes**, so the evidence scan recognises them.

:class:`ProductDriver` writes three members (``start_instance``,
``task_list``, ``task_page``) and a ``name``; everything else has a default
that a product without it can keep. A capability's members (the pages of
:data:`~harness.products.capabilities.CAPABILITY_MEMBERS`) refuse by
default with :class:`~harness.products.capabilities.Lacks`. The contract,
member by member, is docs/reference/driver-seam.md; the in-memory fake
(:mod:`harness.products.fake`) is the seam's test double.
"""

from __future__ import annotations

import re
import signal
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, NoReturn, Protocol

from harness.core.product_records import RecordId
from harness.products.api import ProductApi
from harness.products.capabilities import CAPABILITY_MEMBERS, Lacks, capability_of
from harness.products.views import (
    AgentView,
    ApprovalsView,
    CostPageView,
    HireFormView,
    RenderedPage,
    RoutinesView,
    RoutineView,
    TaskListView,
    TaskSkillsView,
    TaskView,
)


class InstanceError(RuntimeError):
    """The product did not start (or stop) as asked: an infrastructure failure, not a product verdict."""


class ProductInstance(Protocol):
    """One isolated, running copy of the product."""

    base_url: str

    @property
    def data_dir(self) -> Path:
        """The instance's own folder on disk (its database, logs and workspaces)."""
        ...

    @property
    def api(self) -> ProductApi: ...

    @property
    def agent_workspaces(self) -> Path:
        """The folder holding every agent workspace on disk (the secret scan reads it after the run)."""
        ...

    def issued_secrets(self) -> dict[str, str]:
        """Label to value of the secrets the instance handed out (run tokens, agent keys) that the harness can
        know: the evidence scan looks for these values, beside the product's credential shapes. Read before
        ``close`` (which removes the data folder)."""
        ...

    def start(self) -> ProductInstance:
        """Start (or start again, on the same data and port) and return once it answers."""
        ...

    def stop_controller(self, sig: signal.Signals = signal.SIGTERM) -> None:
        """Stop only the controller; the agents' runners keep going."""
        ...

    def close(self) -> None:
        """Tear everything down (controller, runners, helpers, data); safe to call twice."""
        ...

    def log_paths(self) -> list[Path]: ...
    def process_alive(self, pid: int, start_time: float) -> bool: ...
    def process_group_alive(self, pgid: int) -> bool: ...


class ProductDriver(ABC):
    """Everything product-specific a journey uses; one package per product subclasses it."""

    name: ClassVar[str]
    """The product's name, as its declaration and cells name it."""

    secret_patterns: ClassVar[Mapping[str, re.Pattern[bytes]]] = {}
    """The shapes of the credentials the product issues, by label; the evidence scan looks for each. A product
    that issues none keeps the default: nothing of its shape can leak."""

    meters_model_calls: ClassVar[bool] = False
    """Whether each run's spend counts the model calls it made (the testbed's metering proxy does): a replay cell
    then checks that every call the replay answered is on the product's record (metering.calls-metered)."""

    def version(self) -> str | None:
        """The product's release as this machine runs it, for provenance (None: not known, or not installed)."""
        return None

    def published_assets(self) -> frozenset[str]:
        """sha256 of the files the product serves alike to every visitor (its web UI's bundles).

        A trace records them byte for byte; a credential shape inside them is
        the product's own public text, not this run's secret (see ``scan_tree``).
        By default none: every byte a trace holds is scanned.
        """
        return frozenset()

    def warm_up(self, many_instances: bool) -> None:
        """Begin, in the background, what the first instance would otherwise wait for; return at once.

        Called before the browser launches in a process about to play this
        product's cells, so the two overlap (the testbed starts the forkserver
        its controllers are forked from). ``many_instances``: the process will
        start more than one, so a start-up cost shared by all of them pays.
        By default nothing is begun.
        """
        return None

    def cool_down(self) -> None:
        """End what ``warm_up`` or the first instance began, once the process has stopped its last instance.

        Called where the process's cells end (a `harness run` session, a cell
        worker), so the run folder's release finds no helper of this driver
        to report as left behind. By default nothing is ended.
        """
        return None

    def remove_leftovers(self, run_folder: Path) -> None:
        """Remove what the instances started under ``run_folder`` keep outside it (for example sandboxes on an
        engine), which a run killed outright (no teardown) leaves and no process names. By default an instance
        keeps nothing outside its run folder, so nothing is removed."""
        return None

    @abstractmethod
    def start_instance(
        self,
        pace_s: float,
        defects: Sequence[str] = (),
        model_upstream: str | None = None,
        agent_time_limit_s: float | None = None,
    ) -> ProductInstance:
        """A new isolated instance, started; ``pace_s`` is the scripted agent's step time.

        ``defects`` names product defects to switch on (calibration only; a
        driver whose product has none refuses any name, so a calibration run
        can never pass by silently running the healthy product). A driver that
        runs live agent CLIs also takes ``model_upstream`` (keyword): the model
        server its agents' metering proxies forward to (the replay server),
        and ``agent_time_limit_s``: each live agent run's wall-clock limit
        (None: the product's own).
        """

    @abstractmethod
    def task_list(self, page: Any, base_url: str) -> TaskListView:
        """The product's start page, where a person creates a task."""

    @abstractmethod
    def task_page(self, page: Any, base_url: str, task_id: RecordId) -> TaskView:
        """A task's page: its status, thread, deliveries and Stop."""

    # ---- capabilities: a product that declares one overrides its members ------------------

    def serves(self, capability: str) -> bool:
        """Whether this driver (and the API class it names) overrides every driver member of ``capability``;
        the declaration says what the product *has*, this says what the driver *wrote* (a test holds them equal)."""
        members = [m for m in CAPABILITY_MEMBERS.get(capability, ()) if hasattr(ProductDriver, m)]
        return all(getattr(type(self), m) is not getattr(ProductDriver, m) for m in members)

    def _lacks(self, member: str) -> NoReturn:
        raise Lacks(self.name, capability_of(member) or member, member)

    def task_skills(self, page: Any, base_url: str, task_id: RecordId) -> TaskSkillsView:
        """Where a person finds the skills the task's runs created (``skills``)."""
        self._lacks("task_skills")

    def services_page(self, page: Any, base_url: str) -> RenderedPage:
        """Where a person sees the installed services and their connections, opened (``services``)."""
        self._lacks("services_page")

    def hire_form(self, page: Any, base_url: str) -> HireFormView:
        """Where a person hires an agent (``hiring``)."""
        self._lacks("hire_form")

    def approvals_page(self, page: Any, base_url: str) -> ApprovalsView:
        """Where the board decides on hires waiting for approval (``hire-approval``)."""
        self._lacks("approvals_page")

    def agent_page(self, page: Any, base_url: str, agent_id: RecordId) -> AgentView:
        """An agent's page with its pause, resume and terminate controls (``agent-controls``)."""
        self._lacks("agent_page")

    def routines_page(self, page: Any, base_url: str) -> RoutinesView:
        """Where a person creates a routine (``routines``)."""
        self._lacks("routines_page")

    def routine_page(self, page: Any, base_url: str, routine_id: RecordId) -> RoutineView:
        """A routine's page with its record of runs (``routines``)."""
        self._lacks("routine_page")

    def cost_page(self, page: Any, base_url: str) -> CostPageView:
        """The cost page: each agent's spend and budget, and the budget form (``budget-pause``)."""
        self._lacks("cost_page")
