"""stories package."""
