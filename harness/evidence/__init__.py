"""An attempt's evidence package as it is written: recorder, screenshots' thumbnails, secret scan, provenance."""
