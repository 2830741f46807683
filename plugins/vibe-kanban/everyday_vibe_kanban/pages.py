"""Page objects (work in progress)."""
