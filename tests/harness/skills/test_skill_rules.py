"""The skill rules decide on what the API stored and what Studio shows, whatever markdown the editor stored."""

from __future__ import annotations

from harness.skills import rules

BEFORE = "# Release notes\n\n## Steps\n\n1. Gather what changed.\n2. Review before publishing.\n"
EDITED = f"{BEFORE.rstrip()}\n\n## Reviewed\n\nChecked by a person in Studio (n0nce).\n"
ADDED = "Checked by a person in Studio (n0nce)."
# As Paperclip's markdown editor stored the same edit: its own blank lines, no final newline.
STORED_BY_EDITOR = f"{BEFORE}\n\n\n## Reviewed\n\n{ADDED}"
# As its editor shows it: no markdown markers, list numbers drawn by the page.
SHOWN = "Release notes\nSteps\nGather what changed.\nReview before publishing.\nReviewed\n\nChecked by a person  in Studio (n0nce)."


def test_an_edit_stored_in_the_editors_own_markdown_and_shown_as_rendered_text_is_saved() -> None:
    assert rules.edit_saved(EDITED, ADDED, STORED_BY_EDITOR, 2, 1, SHOWN).passed
    assert rules.edit_kept(ADDED, SHOWN).passed


def test_an_edit_is_not_saved_when_the_newest_body_misses_it_no_version_is_made_or_studio_does_not_show_it() -> None:
    assert "not the edited body" in rules.edit_saved(EDITED, ADDED, BEFORE, 2, 1, SHOWN).detail
    assert "no new version" in rules.edit_saved(EDITED, ADDED, STORED_BY_EDITOR, 1, 1, SHOWN).detail
    lost = rules.edit_saved(EDITED, ADDED, STORED_BY_EDITOR, 2, 1, BEFORE)
    assert not lost.passed and "does not show the edit" in lost.detail
    assert not rules.edit_kept(ADDED, BEFORE).passed


def test_a_body_that_drops_the_skills_own_words_is_not_the_edit() -> None:
    assert not rules.edit_saved(EDITED, ADDED, f"## Reviewed\n\n{ADDED}\n", 2, 1, SHOWN).passed


def test_the_product_tells_of_the_new_skill_exactly_once() -> None:
    assert rules.notice_shown(["7"], "the activity feed").passed
    assert not rules.notice_shown([], "the activity feed").passed
    assert "2 notice(s)" in rules.notice_shown(["7", "7"], "the task's thread").detail
