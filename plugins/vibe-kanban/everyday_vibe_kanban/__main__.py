"""``python -m everyday_vibe_kanban install``: install the pinned vibe-kanban (``make vibe-kanban``)."""

from __future__ import annotations

import sys

from everyday_vibe_kanban import install


def main(argv: list[str]) -> int:
    if argv != ["install"]:
        print("usage: python -m everyday_vibe_kanban install", file=sys.stderr)
        return 2
    try:
        seconds = install.install()
    except install.InstallFailed as error:
        print(f"vibe-kanban: {error}", file=sys.stderr)
        return 1
    print(f"vibe-kanban {install.PINNED_VERSION} ready in {install.INSTALL_DIR} ({seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
