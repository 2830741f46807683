"""Shapes of the testbed's own credentials, so the evidence scanner can find them.

The product keeps only hashes of run tokens, and each runner makes its
metering proxy's key itself, so the harness cannot know their values; it
recognises them by their prefix instead.
"""

from __future__ import annotations

import re

SECRET_PATTERNS: dict[str, re.Pattern[bytes]] = {
    "testbed run token": re.compile(rb"tbrun_[A-Za-z0-9_\-]{20,}"),
    # The key a live agent CLI gets for its run's metering proxy (agents.cli_agent).
    "metering proxy key": re.compile(rb"throwaway-[A-Za-z0-9_\-]{24,}"),
}
