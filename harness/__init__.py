"""The harness: plays story cells against a product in a real browser, judges them and keeps the evidence."""
