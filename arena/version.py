"""The arena's version, in a module of its own so that layers under the package's
public face can name it without importing that face."""

__version__ = "0.1.0"
