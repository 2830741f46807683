"""References that fixtures mint and rules look for: shared by the side that makes them and the side that judges."""

from __future__ import annotations

import re

CONTACT_MARKER = re.compile(r"\bHS-[0-9A-F]{10}\b")
"""The gateway fixture's contact reference: "HS-" and ten upper-case hex digits, new for every gateway started."""
