"""A template outside package: one product declaration with its driver, and one story, plugged in by entry points."""
