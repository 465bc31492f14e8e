"""Public names that load their module on first use (PEP 562), so that a bot importing
only the rules does not pay for the referee, numpy or Trio; and the public name an
error is shown by.

A package lists its public names once, as the imports of its `if TYPE_CHECKING:` block:
mypy reads those imports as they are, and `lazy_names` reads the same lines from the
package's source to learn where each name lives. Every name so imported is public
(its `__all__`), in the order written."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from typing import Any, TypeVar

E = TypeVar("E", bound=type[BaseException])

PUBLIC_PACKAGE = "arena"
"""Where the public errors are shown to live: `arena.SetupError`, not the module that
defines it."""


def public(error: E) -> E:
    """Show the error class `error` as `arena.<name>`, the name its users catch it by
    (in tracebacks and reprs); pickle finds it there too, through arena's lazy
    `__getattr__`. Errors only: a class's string annotations resolve in its
    `__module__`, so a dataclass shown as arena's would break typing.get_type_hints."""
    if not issubclass(error, BaseException):
        raise TypeError(f"{error.__name__} is not an error; only errors are shown as {PUBLIC_PACKAGE}'s")
    error.__module__ = PUBLIC_PACKAGE
    return error


def lazy_names(package: str) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """`__getattr__`, `__dir__` and `__all__` for `package`: each name its TYPE_CHECKING
    block imports is imported from its module when first asked for, then kept in the
    package's namespace."""
    module = sys.modules[package]
    where = typing_imports(_source(module), package)
    namespace = module.__dict__

    def load(name: str) -> Any:
        found = where.get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(found[0]), found[1])
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted({*namespace, *where})

    return load, names, list(where)


def typing_imports(source: str, package: str) -> dict[str, tuple[str, str]]:
    """Each name imported under `if TYPE_CHECKING:` at the top level of `source`, with
    the module and the name it comes from."""
    where: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if not isinstance(statement, ast.ImportFrom) or statement.module is None or statement.level:
                    raise TypeError(f"{package}: write `from MODULE import NAME as NAME` under TYPE_CHECKING, "
                                    f"not {ast.unparse(statement)}")
                for alias in statement.names:
                    where[alias.asname or alias.name] = (statement.module, alias.name)
    return where


def _source(module: Any) -> str:
    loader = getattr(module.__spec__, "loader", None)
    source = loader.get_source(module.__name__) if loader is not None and hasattr(loader, "get_source") else None
    if source is None:
        raise ImportError(f"{module.__name__}: its source is needed to list its public names")
    return str(source)
