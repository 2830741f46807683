"""What is done with finished packages: loading, summary, merge, review, promotion and the static report."""
