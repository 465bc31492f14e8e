"""Covert channels between two sandboxes, a sender and a receiver each (scripts/measure_channels.py)."""
