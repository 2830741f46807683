"""``python -m everyday_paperclip install``: what ``make paperclip`` runs (the start-up benchmark is ``everyday_paperclip.bench``)."""

from __future__ import annotations

import argparse
import shutil
import time

from everyday_paperclip import install, template


def _size(path: str) -> int:
    import os

    return sum(
        os.path.getsize(os.path.join(d, f))
        for d, _, fs in os.walk(path)
        for f in fs
        if not os.path.islink(os.path.join(d, f))
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m everyday_paperclip")
    parser.add_argument("command", choices=["install"])
    parser.parse_args(argv)
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise SystemExit("Paperclip needs node and npm on PATH")
    took = install.install()
    started = time.monotonic()
    template.prepare()
    print(
        f"paperclip {install.PINNED_VERSION} in {install.INSTALL_DIR} "
        f"({_size(str(install.MODULES)) / 2**30:.2f} GiB; npm {took:.0f} s; template {time.monotonic() - started:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
