"""Shapes of Paperclip's credentials, so the evidence scan finds them in a package.

Run tokens (``PAPERCLIP_API_KEY`` of a run) are JWTs signed with the
instance's agent secret; agent and board API keys start with ``pcp_``.
"""

from __future__ import annotations

import re

SECRET_PATTERNS: dict[str, re.Pattern[bytes]] = {
    "Paperclip run token (JWT)": re.compile(rb"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}"),
    "Paperclip API key": re.compile(rb"pcp_(?:[a-z_]+_)?[0-9a-f]{32,}"),
    "Paperclip agent JWT secret": re.compile(rb"PAPERCLIP_AGENT_JWT_SECRET=[^\s\"']{16,}"),
}
