"""Arms the no-launch guard in every Python process a `make check` test starts (this folder is on PYTHONPATH then)."""

import os

if os.environ.get("EVERYDAY_NO_LAUNCH"):
    import no_launch_guard

    no_launch_guard.install()
