"""Calibration: bad deliveries, bad records, faulty personas and product defects, each proven caught by its check."""
