"""One `clone` for every game's state, derived from what the state class declares:
`copied` names the attributes a copy must not share, each with how to copy it; every
other attribute is shared (numbers, strings, tuples, frozen objects, tables shared by
all states, and caches that are replaced rather than changed in place).

Search bots clone thousands of positions a second, so the copy is not a loop over the
declaration: on a class's first clone its code is generated from the declaration and
the instance's attributes (as dataclasses generate `__init__`), and installed as the
class's `clone`, so that every later clone runs straight-line code like a hand-written
one."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")
Copier = Callable[[Any], Any]
"""How an attribute is copied: `list.copy`, `set.copy`, `dict.copy`, `copy_lists`..."""


def copy_lists(items: list[list[T]]) -> list[list[T]]:
    """A list of lists, each copied (hands, stocks)."""
    return list(map(list.copy, items))


def copy_sets(items: list[set[T]]) -> list[set[T]]:
    """A list of sets, each copied (available holes, tips)."""
    return list(map(set.copy, items))


INLINE: dict[Copier, str] = {
    list.copy: "{}.copy()", set.copy: "{}.copy()", dict.copy: "{}.copy()",
    copy_lists: "list(map(list.copy, {}))", copy_sets: "list(map(set.copy, {}))",
}
"""Copiers written straight into the generated code (a function call less each)."""


_GENERATED: dict[type[Any], Callable[[Any], Any]] = {}
"""Generated clones by class, for classes that keep a clone of their own and call it."""


def install_clone(cls: type[Any], names: Iterable[str], copied: Mapping[str, Copier]) -> Callable[[Any], Any]:
    """`cls`'s generated clone for instances with attributes `names` (in their order),
    installed as `cls.clone` unless the class defines a clone of its own. An instance
    of a subclass that inherits the generated clone gets one of its own."""
    clone = _GENERATED.get(cls)
    if clone is None:
        clone = _GENERATED[cls] = _generate(cls, list(names), copied)
    if "clone" not in cls.__dict__:
        cls.clone = clone
    return clone


def _generate(cls: type[Any], names: list[str], copied: Mapping[str, Copier]) -> Callable[[Any], Any]:
    unknown = sorted(set(copied) - set(names))
    if unknown:
        raise TypeError(f"{cls.__name__}.copied names {', '.join(unknown)}, which its states do not have")
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_install": install_clone}
    lines = ["def clone(self):",
             "    if self.__class__ is not _cls:",
             "        return _install(self.__class__, self.__dict__, self.__class__.copied)(self)",
             "    other = _new(_cls)"]
    for name in names:
        if name in copied and copied[name] in INLINE:
            lines.append(f"    other.{name} = " + INLINE[copied[name]].format(f"self.{name}"))
        elif name in copied:
            scope[f"_copy_{name}"] = copied[name]
            lines.append(f"    other.{name} = _copy_{name}(self.{name})")
        else:
            lines.append(f"    other.{name} = self.{name}")
    lines.append("    return other")
    exec("\n".join(lines), scope)  # noqa: S102 - our own code, from attribute names
    clone: Callable[[Any], Any] = scope["clone"]
    clone.__qualname__ = f"{cls.__qualname__}.clone"
    clone.__doc__ = f"An independent copy (generated from {cls.__name__}.copied)."
    return clone
