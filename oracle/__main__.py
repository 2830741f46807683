"""Entry point for `python -m oracle`."""

import sys

from oracle.cli import main

sys.exit(main())
