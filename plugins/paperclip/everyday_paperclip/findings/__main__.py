"""``python -m everyday_paperclip.findings`` (``make findings``): run every Paperclip reproduction."""

from __future__ import annotations

import argparse

from everyday_paperclip.declaration import PRODUCT
from everyday_paperclip.findings.runner import FINDINGS_DIR, explained, run_all


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m everyday_paperclip.findings",
        description="Run each standalone reproduction of a known Paperclip finding against the pinned Paperclip.",
    )
    parser.parse_args(argv)
    return run_all(FINDINGS_DIR, explained(PRODUCT.known_findings))


if __name__ == "__main__":
    raise SystemExit(main())
