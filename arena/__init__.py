"""The arena: a referee for bots playing tree-growing strategy games."""

__version__ = "0.1.0"
