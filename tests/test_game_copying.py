"""The clone every game's state shares (arena/games/copying.py): generated from what a
class declares copied, installed once, right for subclasses, and loud about a
declaration that names an attribute the states do not have."""

from __future__ import annotations

from typing import Any

import pytest

from arena.games.base import Result, State
from arena.games.copying import copy_lists


class Pile(State):
    copied = {"stacks": copy_lists, "seen": set.copy}

    def __init__(self) -> None:
        super().__init__(1, {})
        self.stacks = [[1, 2], [3]]
        self.seen = {1}
        self.label: tuple[str, ...] = ("a", "b")
        self._cache: list[int] | None = None

    def current(self) -> int:
        return 0

    def legal_actions(self) -> list[str]:
        return ["push"]

    def apply(self, action: str) -> None:
        self.stacks[0].append(len(self.seen))
        self.seen.add(len(self.seen) + 1)

    def result(self) -> Result:
        return Result((1,), (0.0,))

    def observation(self, seat: int) -> dict[str, Any]:
        return {"stacks": self.stacks}


class TallPile(Pile):
    def __init__(self) -> None:
        super().__init__()
        self.height = 3


class OwnClone(Pile):
    def clone(self) -> OwnClone:
        twin = super().clone()
        twin.label = ("own",)
        return twin


def test_the_generated_clone_copies_what_is_declared_and_shares_the_rest() -> None:
    pile = Pile()
    twin = pile.clone()
    assert "clone" in Pile.__dict__, "installed on the class at its first clone"
    twin.apply("push")
    assert pile.stacks == [[1, 2], [3]] and pile.seen == {1}
    assert twin.stacks[1] is not pile.stacks[1] and twin.label is pile.label and twin.num_seats == 1
    assert twin.__dict__.keys() == pile.__dict__.keys() and type(twin) is Pile


def test_a_subclass_gets_its_own_clone_and_a_class_with_its_own_keeps_it() -> None:
    Pile().clone()
    tall = TallPile()
    twin = tall.clone()
    assert type(twin) is TallPile and twin.height == 3 and twin.stacks is not tall.stacks
    own = OwnClone().clone()
    assert type(own) is OwnClone and own.label == ("own",)
    assert OwnClone.__dict__["clone"] is not Pile.__dict__["clone"]


def test_copied_naming_an_attribute_the_states_lack_is_a_type_error() -> None:
    class Broken(Pile):
        copied = {"stacks": copy_lists, "nowhere": list.copy}

    with pytest.raises(TypeError, match="nowhere"):
        Broken().clone()
