"""What varies between two runs of one cell, so that a request can be matched to the recorded one and its answer fitted.

A value a rule matches (an id, a token, a time, a path, a port) is replaced by
a placeholder before two requests are compared. Once a request matches, the
values its rules found are paired, in order, with the ones the recorded
request held, and the recorded answer is given the current ones: an answer
that names the task's id or the workspace's path names this run's.
Rules come from three places: the ones every cell shares (here), the agent
CLI's (``AgentCli.volatile``) and the product's (``ProductDeclaration.volatile``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

PLACEHOLDER = "<varies>"

COMMON_RULES = (
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",  # UUIDs
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?",  # dates and times
    r"(?:/tmp|/var/tmp|/private/var/folders)/[^\s\"'\\]+",  # temporary folders and what is under them
    r"(?:127\.0\.0\.1|localhost):\d+",  # loopback ports
    r"\b[0-9a-fA-F]{16,}\b",  # hex tokens and digests
    r"\b1\d{12}\b",  # times in epoch milliseconds
    r"\b\d+\.\d+ ?(?:ms|s|sec|seconds)\b",  # how long a command took, as its output reports it
)


class Normaliser:
    """Compiled rules; ``key`` compares requests, ``fit`` gives a recorded answer the current values."""

    def __init__(self, rules: Iterable[str] = ()) -> None:
        self.rules = tuple(re.compile(rule) for rule in (*rules, *COMMON_RULES))

    def key(self, body: str) -> str:
        """The request with every varying value replaced, and its JSON (if it is JSON) in one canonical form."""
        text = canonical(body)
        for rule in self.rules:
            text = rule.sub(PLACEHOLDER, text)
        return text

    def fit(self, answer: str, recorded_request: str, request: str) -> str:
        """``answer`` with each value the recorded request held replaced by the one in its place in ``request``."""
        pairs: dict[str, str] = {}
        old_text, new_text = canonical(recorded_request), canonical(request)
        for rule in self.rules:
            was = [m.group(0) for m in rule.finditer(old_text)]
            now = [m.group(0) for m in rule.finditer(new_text)]
            if len(was) == len(now):
                pairs.update((w, n) for w, n in zip(was, now, strict=True) if w != n and w not in pairs)
            old_text, new_text = rule.sub(PLACEHOLDER, old_text), rule.sub(PLACEHOLDER, new_text)
        for value in sorted(pairs, key=len, reverse=True):
            answer = answer.replace(value, pairs[value])
        return answer


def canonical(body: str) -> str:
    """Pretty, key-sorted JSON (so a diff reads line by line), or the text itself if it is not JSON."""
    try:
        return json.dumps(json.loads(body), indent=1, sort_keys=True, ensure_ascii=False)
    except ValueError:
        return body
