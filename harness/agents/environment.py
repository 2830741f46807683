"""The environment a runner and its agent's tools get: what a program needs to run, nothing else.

The controller's environment may hold provider keys, cloud credentials and
test hooks. A runner executes an agent, and an agent executes code it wrote,
so both start from this short allow-list instead of inheriting everything.
"""

from __future__ import annotations

import os

# Enough to find programs, a home folder, a locale and a temp folder; PYTHONPATH
# only matters when the product runs from a source tree without being installed.
PASSED_THROUGH = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH")


def minimal_environment(**own_settings: str) -> dict[str, str]:
    """The allow-listed variables of this process plus the child's ``own_settings``."""
    passed = {name: os.environ[name] for name in PASSED_THROUGH if name in os.environ}
    return {"PATH": os.defpath, **passed, **own_settings}
