"""The reviewer's evidence browser: a static site built from evidence packages (see build.py)."""
