"""The vocabulary every layer shares: the catalog and its doors, settings, verdicts, records, deadlines."""
