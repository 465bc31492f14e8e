"""The `arena` command line: one module per group of commands, sharing cli.common."""

from arena.cli.app import app, main

__all__ = ["app", "main"]
