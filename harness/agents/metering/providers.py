"""The model providers the metering proxy can stand in front of, and where an operator's key for each comes from.

The provider's key and where its API lives (the proxy appends the CLI's
request path) come from the operator's environment, under the names the
providers' own SDKs read; the code names no host.
"""

from __future__ import annotations

from typing import Literal

Provider = Literal["openai", "anthropic"]

KEY_VARIABLE: dict[Provider, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BASE_URL_VARIABLE: dict[Provider, str] = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
OPERATOR_VARIABLES = (*KEY_VARIABLE.values(), *BASE_URL_VARIABLE.values())
"""Everything a runner takes from the operator for its proxy (and removes from its own environment)."""
