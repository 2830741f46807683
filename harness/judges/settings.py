"""How a judge is configured: flags first, then the environment; the credential's *name* only, never its value.

The API key is read from the environment at the moment of the call and goes
nowhere else: not into a request, a result, a cache entry or a log line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

ENV_PREFIX = "EVERYDAY_JUDGE_"


class JudgeSettings(BaseModel):
    """One judging session's configuration (``harness judge`` flags, else ``EVERYDAY_JUDGE_*``)."""

    endpoint: str | None = Field(None, description="the URL before /v1 (an OpenAI-compatible or Anthropic endpoint)")
    protocol: Literal["openai", "anthropic"] = "openai"
    model: str | None = None
    api_key_env: str = Field(f"{ENV_PREFIX}API_KEY", description="the environment variable holding the key")
    timeout_s: float = Field(60.0, gt=0)
    max_tokens: int = Field(600, gt=0)
    temperature: float = 0.0
    max_evidence_chars: int = Field(
        20_000, gt=0, description="agent text longer than this is inconclusive (too large), never silently cut"
    )
    budget_cents: float | None = Field(None, ge=0, description="stop calling models once this much is spent")
    cache: Path | None = Field(None, description="the reply cache folder (default: <results>/.judge-cache)")

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None, **flags: object) -> JudgeSettings:
        """Flags given (not None) win over ``EVERYDAY_JUDGE_<FIELD>`` variables, which win over defaults."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for name in cls.model_fields:
            if name in ("api_key_env",):
                continue
            if (text := env.get(f"{ENV_PREFIX}{name.upper()}")) is not None:
                values[name] = text
        values.update({k: v for k, v in flags.items() if v is not None})
        return cls.model_validate(values)

    def api_key(self) -> str:
        """The key, read now; a local endpoint (the replay) needs none."""
        return os.environ.get(self.api_key_env, "")

    def parameters(self) -> dict[str, object]:
        """What shapes a reply besides the prompt: part of the cache key."""
        return {"max_tokens": self.max_tokens, "temperature": self.temperature, "protocol": self.protocol}
