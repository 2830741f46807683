"""Paperclip's promises cite the pinned release truly: each source file exists and holds what it is cited for."""

from __future__ import annotations

import re

from everyday_paperclip import install
from everyday_paperclip.promises import CONTRADICTED, PROMISES, SESSIONED_LOCAL_ADAPTERS, promise
from harness.checks.lifecycle import CHECK_IDS

# camelCase or UPPER_CASE names a source cites (functions, constants), and quoted help or log text
NAME = re.compile(r"\b(?:[a-z]+[A-Z]\w*|[A-Z]+_[A-Z_]+)\b")
QUOTED = re.compile(r'"([^"]{12,})"')


def citations(source: str) -> list[tuple[str, str]]:
    """(file under node_modules, what it is cited for) for each ``path: ...`` part of a source."""
    parts = re.split(r";\s*(?=@?[\w-]+/)", source)
    return [(path.strip(), rest) for path, _, rest in (part.partition(": ") for part in parts)]


def test_every_cited_file_of_the_pinned_release_holds_the_names_and_words_it_is_cited_for() -> None:
    install.require_installed()
    for each in PROMISES:
        cited = citations(each.source)
        assert cited, f"{each.id} cites no file"
        for path, what in cited:
            text = (install.MODULES / path).read_text()
            for name in NAME.findall(what):
                assert name in text, f"{each.id}: {path} has no {name}"
            for words in QUOTED.findall(what):  # "..." leaves out words between the pieces quoted
                assert all(piece.strip() in text for piece in words.split("...")), f"{each.id}: {path} lacks {words!r}"


def test_the_hot_restart_covers_paperclips_own_sessioned_adapters_and_not_the_process_adapter() -> None:
    install.require_installed()
    heartbeat = (install.MODULES / "@paperclipai/server/dist/services/heartbeat.js").read_text()
    listed = re.search(r"const SESSIONED_LOCAL_ADAPTERS = new Set\(\[(.*?)\]\)", heartbeat, re.DOTALL)
    assert listed and tuple(re.findall(r'"([a-z_]+)"', listed.group(1))) == SESSIONED_LOCAL_ADAPTERS
    hot = promise("hot-restart-preserves-runs")
    assert hot.covers("codex_local") and hot.covers("claude_local") and not hot.covers("process")
    assert promise("sigterm-drains-runs").covers("process")


def test_a_contradicted_check_exists_and_names_a_documented_promise() -> None:
    assert CONTRADICTED and set(CONTRADICTED) <= set(CHECK_IDS)
    assert set(CONTRADICTED.values()) <= {each.id for each in PROMISES}
