"""`harness run --engine ray`: a campaign's cells as Ray tasks across a cluster, their packages brought home."""
