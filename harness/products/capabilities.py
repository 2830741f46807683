"""Capabilities: what a product can do for a story beyond the journey every story takes, and the seam members each needs.

A product *declares* its capabilities (``ProductDeclaration.capabilities``,
data read when the catalog is built); a story names the ones it ``needs``, and
a cell exists only where the product declares all of them (elsewhere it is
listed as not applicable: "<product> lacks <capability>: <reason>"). The
driver and its API then *serve* each declared capability by overriding the
members below; the base classes' defaults for those members raise
:class:`Lacks`, so an undeclared capability can never be exercised by silent
fallback, and no caller needs a ``cast`` to reach a member.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# Each capability's members on the driver (pages it opens) and on its API (records it reads and writes).
CAPABILITY_MEMBERS: Mapping[str, tuple[str, ...]] = {
    "skills": ("task_skills", "skills", "skill"),
    "services": (
        "services_page",
        "install_service",
        "add_connection",
        "connections",
        "interactions",
        "decide",
        "approve_anywhere",
        "raw_reads",
    ),
    "chat-connectors": ("set_chat_connectors",),
    "providers": ("providers", "choose"),
    "hiring": ("hire_form",),
    "hire-approval": ("approvals_page", "require_hire_approval", "request_hire", "hire_approvals"),
    "agent-controls": ("agent_page", "offer_task"),
    "routines": ("routines_page", "routine_page", "routines", "routine", "deliver_webhook"),
    "budget-pause": ("cost_page", "set_company_budget", "set_agent_budget"),
}
"""Capabilities a story may need that are behaviour of the product rather than extra members (``delegation``,
``controller-restart``, ``graceful-drain``, ``stop``, ``connection-requests``) are not listed: the core members
serve them, and the declaration alone says whether the product has them."""


class Lacks(NotImplementedError):
    """A story reached a member of a capability its product does not serve.

    The catalog makes no cell where a story needs a capability the product
    lacks, so reaching this is a wrong declaration (a capability declared and
    not served), named as such rather than as a product failure.
    """

    def __init__(self, product: str, capability: str, member: str) -> None:
        self.product, self.capability, self.member = product, capability, member
        super().__init__(f"no cell: {product} lacks {capability} ({member} is not served by its driver)")


def capability_of(member: str) -> str | None:
    """The capability a seam member belongs to; None for a core member every driver serves."""
    return next((name for name, members in CAPABILITY_MEMBERS.items() if member in members), None)


def unserved(declared: Iterable[str], served: Iterable[str]) -> dict[str, list[str]]:
    """The declared capabilities whose members are not all in ``served`` (members a driver or API overrides)."""
    have = set(served)
    return {
        name: missing
        for name in sorted(set(declared))
        if (missing := [member for member in CAPABILITY_MEMBERS.get(name, ()) if member not in have])
    }


def overridden(cls: type, base: type) -> set[str]:
    """The members of ``base`` that ``cls`` (a driver or API class) writes itself rather than keeps the default of."""
    return {
        name for name in dir(base) if not name.startswith("_") and getattr(cls, name, None) is not getattr(base, name)
    }
