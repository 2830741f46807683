"""products."""
