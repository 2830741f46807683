"""How a product words what it hands an agent: a declaration its plug-in makes, which the model replay reads.

The replay plays a competent agent from the words of the prompt alone, so it
must know each product's wording: where the request is, where the person's
new words are, and whether a prompt names only the work item (the agent reads
it first). A product's plug-in declares that here, as patterns; the replay
holds no product's wording of its own, so a new product needs no edit to it.
"""

from __future__ import annotations

import re
from functools import cached_property

from pydantic import BaseModel, ConfigDict, Field


class PromptFormat(BaseModel):
    """The patterns of one product's prompts; an empty pattern is wording the product never uses."""

    model_config = ConfigDict(frozen=True)

    task: str = Field(default="", description="a briefing naming the request: groups ``title`` and ``body``")
    new_messages: str = Field(
        default="",
        description="the person's new messages as a ``- `` list (group ``messages``): the newest is the last item",
    )
    comments_heading: str = Field(default="", description="the line after which the comments that woke a run follow")
    comment: str = Field(
        default="", description="one listed comment: groups ``id``, ``author`` (``user`` for a person's) and ``body``"
    )
    names_item_only: str = Field(
        default="", description="a wake that names the work item without its request: the agent reads the item first"
    )
    resumes_with_words: bool = Field(
        default=False,
        description="a follow-up resumes the agent's session with the person's words as they are (the opening prompt"
        " matches ``task``)",
    )

    @cached_property
    def _task(self) -> re.Pattern[str] | None:
        return re.compile(self.task, re.DOTALL | re.MULTILINE) if self.task else None

    @cached_property
    def _new_messages(self) -> re.Pattern[str] | None:
        return re.compile(self.new_messages, re.DOTALL) if self.new_messages else None

    @cached_property
    def _comment(self) -> re.Pattern[str] | None:
        return re.compile(self.comment, re.DOTALL | re.MULTILINE) if self.comment else None

    def request(self, text: str) -> re.Match[str] | None:
        """The briefing's request (``title``, ``body``), where ``text`` is worded as this product's briefing."""
        return self._task.search(text) if self._task else None

    def resumed_with_words(self, opening: str) -> bool:
        """The session that ``opening`` opened resumes with the person's words as they are."""
        return self.resumes_with_words and bool(opening) and self.request(opening) is not None

    def names_item(self, text: str) -> bool:
        return bool(self.names_item_only) and re.search(self.names_item_only, text, re.MULTILINE) is not None

    def woken_by(self, text: str) -> list[re.Match[str]] | None:
        """The comments listed as having woken the run, oldest first; None when ``text`` lists none this way."""
        if not (self._comment and self.comments_heading and self.comments_heading in text):
            return None
        return list(self._comment.finditer(text.split(self.comments_heading, 1)[1]))

    def newest_message(self, text: str) -> str | None:
        """The person's newest words in ``text`` ("" when the listed words are none of theirs); None when ``text``
        brings no new words in this product's wording."""
        if self._new_messages and (news := self._new_messages.search(text)):
            return news.group("messages").strip().split("\n- ")[-1]
        if (woken := self.woken_by(text)) is not None:
            from_user = [m.group("body").strip() for m in woken if m.group("author") == "user"]
            return from_user[-1] if from_user else ""
        return None
