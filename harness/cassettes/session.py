"""A cassette in one attempt: the tap that records it, or the player that stands in for the model.

Recording ends by writing the cassette into the attempt's package, after the
product has stopped, so every secret the attempt issued is known and redacted
first. Replaying ends by saying where the agent left the recording, if it did.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from harness.agents.loopback import LoopbackServer
from harness.cassettes.model import Cassette, Exchange, StreamedEvent
from harness.cassettes.normalise import Normaliser
from harness.cassettes.player import CassettePlayer, Divergence
from harness.cassettes.tap import RecordingTap
from harness.core.catalog import Cell
from harness.core.story_inputs import DrawnInput
from harness.evidence.secret_scan import MIN_SECRET_LENGTH, SECRET_PATTERNS

DIVERGENCE_FILE = "cassette-divergence.txt"


class Recording:
    """A tap on loopback in front of ``upstream``; :meth:`keep` writes what it recorded."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.tap = RecordingTap(upstream)
        self.server = LoopbackServer(self.tap.app).start()

    @property
    def url(self) -> str:
        return self.server.url

    def model_calls(self) -> int:
        return len(self.tap.exchanges())

    def keep(
        self,
        folder: Path,
        cell: Cell,
        agent_clis: Mapping[str, str],
        inputs: list[DrawnInput],
        secrets: Mapping[str, str],
        patterns: Mapping[str, re.Pattern[bytes]],
    ) -> Path:
        """The cassette, redacted of ``secrets`` (label: value) and of every credential shape the secret scan knows
        (its own and ``patterns``), in ``folder``."""

        def clean(text: str) -> str:
            for label, value in sorted(secrets.items(), key=lambda item: -len(item[1])):
                if len(value) >= MIN_SECRET_LENGTH:
                    text = text.replace(value, f"[redacted: {label}]")
            data = text.encode()
            for name, pattern in {**SECRET_PATTERNS, **patterns}.items():
                data = pattern.sub(f"[redacted: {name}]".encode(), data)
            return data.decode("utf-8", "replace")

        def cleaned(exchange: Exchange) -> Exchange:
            return exchange.model_copy(
                update={
                    "request": clean(exchange.request),
                    "body": clean(exchange.body) if exchange.body is not None else None,
                    "events": tuple(StreamedEvent(at_s=e.at_s, data=clean(e.data)) for e in exchange.events),
                }
            )

        cassette = Cassette(
            cell=cell.execution_id,
            case=cell.case.name,
            profile=cell.profile.name,
            product=cell.environment.product,
            agent_clis=dict(agent_clis),
            recorded_at=datetime.now(UTC).isoformat(timespec="seconds"),
            upstream="the model replay" if cell.profile.model_server == "replay" else "the provider",
            inputs=tuple(inputs),
            exchanges=tuple(cleaned(e) for e in self.tap.exchanges()),
        )
        return cassette.write(folder)

    def stop(self) -> None:
        self.server.stop()


class Replaying:
    """A player on loopback answering from ``cassette``; :meth:`divergence` says whether the agent left it."""

    def __init__(self, cassette: Cassette, normaliser: Normaliser) -> None:
        self.cassette = cassette
        self.player = CassettePlayer(cassette, normaliser)
        self.server = LoopbackServer(self.player.app).start()

    @property
    def url(self) -> str:
        return self.server.url

    def model_calls(self) -> int:
        return self.player.answered

    def divergence(self, folder: Path) -> Divergence | None:
        """The first place the agent asked what the cassette does not hold (all of them kept in ``folder``)."""
        found = self.player.divergences
        if found:
            (folder / DIVERGENCE_FILE).write_text(
                "\n\n".join(f"{d.headline()}\n{d.diff}" for d in sorted(found, key=lambda d: d.call))
            )
        return min(found, key=lambda d: d.call, default=None)

    def stop(self) -> None:
        self.server.stop()
