"""Bots shipped with the arena: run as scripts (python bots/NAME.py), importable for tests."""
