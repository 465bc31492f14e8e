"""Public names that load their module on first use (PEP 562): a package's
`__getattr__` and `__dir__`, made from a table of where each name lives, so that a bot
importing only the rules does not pay for the referee, numpy or Trio."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, where: dict[str, str],
               public: list[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`: each name of `where` imported from its
    module when first asked for, then kept in the package's namespace."""
    namespace = sys.modules[package].__dict__

    def load(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted({*namespace, *public})

    return load, names
