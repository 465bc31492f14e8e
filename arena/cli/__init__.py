"""The `arena` command line: one module per group of commands, sharing cli.common (what
they print through) and cli.options (their option groups); the work is the library's."""

from arena.cli.app import app, main

__all__ = ["app", "main"]
