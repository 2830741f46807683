"""The read-back rules: what a person entered against what the product stored and shows, and untouched settings."""

from __future__ import annotations

from harness.checks.readback import (
    AFTER_RELOAD,
    AT_STEP,
    Entered,
    ReadBack,
    StepChanges,
    changed_settings,
    settings_of,
    shown_check,
    shown_text,
    stored_check,
    untouched_check,
)
from harness.core.product_records import Agent, Company, Connection

TITLE = "Build a slugify command-line tool"
BODY = "Build it.\n\nDeliver a ZIP."


def _task(
    stored: dict[str, str | None],
    shown: dict[str, str | None] | None = None,
    shows: tuple[str, ...] = ("title", "body"),
) -> ReadBack:
    """Task 1 as read back; ``shows``: the fields its page declares it shows."""
    return ReadBack(
        entered=Entered(where="task 1", typed={"title": TITLE, "body": BODY}),
        stored={AT_STEP: stored, AFTER_RELOAD: stored},
        shown={AT_STEP: shown or {}, AFTER_RELOAD: shown or {}},
        shows={AT_STEP: list(shows), AFTER_RELOAD: list(shows)},
    )


def test_a_value_stored_as_typed_passes_up_to_line_endings_and_surrounding_whitespace() -> None:
    check = stored_check([_task({"title": f" {TITLE} ", "body": BODY.replace("\n", "\r\n")})])
    assert check.passed, check.detail


def test_a_title_stored_cut_short_fails_and_names_it() -> None:
    check = stored_check([_task({"title": TITLE[:24], "body": BODY})])
    assert check.failed and "task 1 title at the step" in check.detail and repr(TITLE[:24]) in check.detail


def test_a_place_whose_records_were_not_read_back_fails() -> None:
    readback = ReadBack(entered=Entered(where="agent Morgan", typed={"name": "Morgan"}))
    assert stored_check([readback]).failed


def test_a_page_that_lays_text_out_otherwise_still_shows_it() -> None:
    check = shown_check(
        [_task({"title": TITLE, "body": BODY}, {"title": TITLE, "body": "Build it. Deliver a ZIP."})], "p"
    )
    assert check.passed, check.detail


def test_a_value_shown_otherwise_after_a_reload_fails() -> None:
    readback = _task({"title": TITLE, "body": BODY}, {"title": TITLE}, shows=("title",))
    readback.shown[AFTER_RELOAD] = {"title": "Untitled"}
    check = shown_check([readback], "p")
    assert check.failed and f"title {AFTER_RELOAD}" in check.detail and "at the step" not in check.detail


def test_a_value_the_page_should_show_but_does_not_fails() -> None:
    assert shown_check([_task({"title": TITLE, "body": BODY}, {"title": None})], "p").failed


def test_a_field_the_page_declares_yet_leaves_out_of_a_look_fails_naming_it() -> None:
    """What used to be "not observable there" at run time: the page object declared it shows the body."""
    check = shown_check([_task({"title": TITLE, "body": BODY}, {"title": TITLE})], "p")
    assert check.failed and check.unobservable is None
    assert f"task 1 body {AFTER_RELOAD}: the page declares it shows it, the look read none" in check.detail


def test_a_package_that_kept_no_declaration_of_what_pages_show_is_no_evidence() -> None:
    readback = _task({"title": TITLE, "body": BODY}, {"title": TITLE, "body": BODY})
    readback.shows = None
    check = shown_check([readback], "p")
    assert check.failed and "no evidence of which fields the pages show for task 1" in check.detail


def test_nothing_shown_anywhere_is_not_observable_never_passed() -> None:
    """Decided by the declarations alone: the page declares no field, whatever a look returns."""
    check = shown_check([_task({"title": TITLE, "body": BODY}, {"title": "anything"}, shows=())], "vibe-kanban")
    assert not check.passed and not check.failed and "vibe-kanban" in str(check.unobservable)


def _agent(agent_id: int, name: str, model: str = "default") -> Agent:
    return Agent(id=agent_id, name=name, role="engineer", reports_to=None, adapter="scripted", model=model)


def _settings(agents: list[Agent], policy: str = "ask_first", bound: tuple[int, ...] = (1,)) -> dict[str, str]:
    connection = Connection(id=5, service_id=2, service_name="Docs", name="docs", policy=policy, agent_ids=list(bound))
    return settings_of(Company(name="Acme", budget_cents=500, spend_cents=0), agents, [connection])


def test_a_step_that_adds_a_record_and_binds_it_changes_nothing_it_was_not_about() -> None:
    before = _settings([_agent(1, "Avery")])
    after = _settings([_agent(1, "Avery"), _agent(2, "Morgan")], bound=(1, 2))
    assert changed_settings(before, after) == []


def test_a_setting_flipped_or_removed_by_a_step_is_named() -> None:
    before = _settings([_agent(1, "Avery"), _agent(3, "Sam")])
    after = _settings([_agent(1, "Avery", model="other")], policy="allow")
    changes = changed_settings(before, after)
    assert "connection 5 policy 'ask_first' -> 'allow'" in changes
    assert "agent 1 model 'default' -> 'other'" in changes
    assert any(change.startswith("agent 3 name") and "(gone)" in change for change in changes)


def test_untouched_fails_on_the_step_that_changed_a_setting() -> None:
    steps = [StepChanges(step="creating task 'x'", changes=[]), StepChanges(step="approve", changes=["c -> d"])]
    check = untouched_check(steps)
    assert check.failed and check.detail == "approve: c -> d"
    assert untouched_check(steps[:1]).passed


def test_a_hire_reads_back_by_name_with_its_manager_by_name() -> None:
    from harness.running.readbacks import agent_fields

    lead, hired = _agent(1, "Avery"), _agent(2, "Morgan").model_copy(update={"role": "QA", "reports_to": 1})
    assert agent_fields([lead, hired], "Morgan") == {
        "name": "Morgan",
        "role": "QA",
        "reports_to": "Avery",
        "adapter": "scripted",
        "model": "default",
    }
    assert agent_fields([lead], "Avery")["reports_to"] == ""
    assert set(agent_fields([hired, hired], "Morgan").values()) == {None}, "two agents of one name are not one hire"


def test_a_setting_the_step_is_about_is_not_compared() -> None:
    before, after = _settings([_agent(1, "Avery")], bound=()), _settings([_agent(1, "Avery")], bound=(1,))
    assert changed_settings(before, after) == ["connection 5 agent_ids '' -> '1'"]
    assert changed_settings(before, after, about={"connection 5 agent_ids"}) == []


def test_a_quote_shown_as_a_quote_is_the_text_typed_and_other_text_is_not() -> None:
    """A product that renders markdown shows a typed quote without its ``>`` markers (Paperclip's thread)."""
    typed = "The specification:\n\n> Build slugify.\n>\n> Deliver a ZIP."
    assert shown_text(typed) == shown_text("The specification:\n\nBuild slugify.\n\nDeliver a ZIP.")
    assert shown_text(typed) != shown_text("The specification:\n\nBuild slugify.")
    assert shown_text("a > b") == "a > b"
