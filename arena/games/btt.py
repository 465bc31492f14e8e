"""Branches and Twigs and Thorns (rules/btt.md): pure rules, no I/O, no randomness.

Everything that depends only on the board (square names, adjacency, every action
string, the parse table) is built once per (seats, board) and shared by all states,
so `legal_actions` only selects precomputed strings and `apply` is a dict lookup plus
a few list updates. Bots import this module, so it imports nothing but the stdlib and
the game interface.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.base import (
    TERMINAL,
    Game,
    IllegalAction,
    Option,
    Result,
    State,
    competition_ranks,
)
from arena.games.btt_board import (
    EMPTY,
    NULL,
    PASS,
    PASS_ACTION,
    PER_SIZE,
    PUT_NULL,
    PUT_ROOT,
    PYRAMID,
    ROOT,
    SIZES,
    START_SCORE,
    Move,
    cut_squares,
    geometry,
)


class BTTState(State):
    """A position. Per square: `owner` (EMPTY, NULL, ROOT or a seat), `size` and
    `target` (pyramids only). `valid` holds the pair ids (empty square, adjacent
    occupied non-null target) that any seat could play now, kept up to date by
    `apply`, so listing moves needs no scan of the board."""

    game_id = "btt"
    copied = {"owner": list.copy, "size": list.copy, "target": list.copy, "left": list.copy, "scores": list.copy,
              "valid": set.copy}

    def __init__(self, num_seats: int, options: Mapping[str, str]) -> None:
        super().__init__(num_seats, options)
        self.geo = geometry(num_seats, options.get("board", "wedge"))
        squares = len(self.geo.names)
        self.owner = [EMPTY] * squares
        self.size = [0] * squares
        self.target = [-1] * squares
        self.left = [PER_SIZE] * (3 * num_seats)
        """Pyramids left: index 3 * seat + size - 1."""
        self.scores = [START_SCORE] * num_seats
        self.ply = 0
        self.placed = 0
        self.passes = 0
        self.over = False
        self.valid: set[int] = set()
        self._legal: list[str] | None = None

    # ---- the interface -------------------------------------------------------------

    def current(self) -> int:
        return TERMINAL if self.over else self.ply % self.num_seats

    def legal_actions(self) -> list[str]:
        return list(self._cached_legal())

    def is_legal(self, action: str) -> bool:
        move = self.geo.parse.get(action)
        if move is None:
            return False
        if self._fast_pyramid(move):
            return True
        return action in self._cached_legal()

    def apply(self, action: str) -> None:
        move = self.geo.parse.get(action)
        if move is None:
            raise IllegalAction(action, f"not an action on the {self.num_seats}-seat {self.geo.board} board")
        kind, size, idx = move
        if self._fast_pyramid(move):
            self._place(self.ply % self.num_seats, size, idx)
        elif action not in self._cached_legal():
            raise IllegalAction(action, self._why_not(move) or "not a legal action here")
        elif kind == PASS:
            self._pass()
        else:
            self._setup(kind, idx)

    def result(self) -> Result:
        scores = tuple(float(s) for s in self.scores)
        return Result(ranks=competition_ranks(scores), scores=scores)

    def observation(self, seat: int) -> dict[str, Any]:
        names = self.geo.names
        squares: dict[str, dict[str, Any]] = {}
        for sq, who in enumerate(self.owner):
            if who == EMPTY:
                continue
            if who == NULL:
                squares[names[sq]] = {"kind": "null"}
            elif who == ROOT:
                squares[names[sq]] = {"kind": "root"}
            else:
                squares[names[sq]] = {"kind": "pyramid", "seat": who, "size": self.size[sq],
                                      "target": names[self.target[sq]]}
        n = self.num_seats
        return {
            "board": self.geo.board,
            "seats": n,
            "seat": seat,
            "ply": self.ply,
            "phase": self.phase(),
            "to_move": None if self.over else self.ply % n,
            "squares": squares,
            "pyramids_left": [self.left[3 * s:3 * s + 3] for s in range(n)],
            "scores": list(self.scores),
        }

    def __eq__(self, other: object) -> bool:
        """Same position (the dataclass default would compare only seats and options)."""
        if not isinstance(other, BTTState):
            return NotImplemented
        return self._key() == other._key()

    # ---- helpers -------------------------------------------------------------------

    def phase(self) -> str:
        """"setup" while nulls and roots are placed, then "play", then "over"."""
        if self.over:
            return "over"
        return "setup" if self.ply < self.num_seats else "play"

    def _key(self) -> tuple[Any, ...]:
        return (self.num_seats, self.geo.board, self.owner, self.size, self.target, self.left,
                self.scores, self.ply, self.passes, self.over)

    def _cached_legal(self) -> list[str]:
        """The legal actions, computed once per position (callers get copies)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _fast_pyramid(self, move: Move) -> bool:
        """Whether a parsed pyramid action is legal: the common case, checked directly."""
        kind, size, pid = move
        n = self.num_seats
        return (kind == PYRAMID and not self.over and self.ply >= n and pid in self.valid
                and self.left[3 * (self.ply % n) + size - 1] > 0)

    def _compute_legal(self) -> list[str]:
        geo = self.geo
        n = self.num_seats
        if self.over:
            return []
        if self.ply < n:
            owner = self.owner
            if self.ply < n // 2:
                cuts = cut_squares(geo, owner)
                return [geo.null_strings[s] for s in geo.by_name if owner[s] == EMPTY and s not in cuts]
            return [geo.root_strings[s] for s in geo.by_name if owner[s] == EMPTY]
        base = 3 * (self.ply % n)
        rows = [geo.move_strings[k] for k in range(3) if self.left[base + k]]
        if not rows or not self.valid:
            return [PASS_ACTION]
        pairs = sorted(self.valid)
        return [row[p] for row in rows for p in pairs]

    def _why_not(self, move: Move) -> str | None:
        """Why a parsed action is illegal now, or None if it is legal."""
        kind, size, idx = move
        n = self.num_seats
        seat = self.ply % n
        if self.over:
            return "the game is over"
        if kind == PASS:
            return None if self._compute_legal() == [PASS_ACTION] else "a pass is only legal with no move"
        if self.ply < n:
            return self._why_not_setup(kind, idx)
        if kind != PYRAMID:
            return "nulls and roots are placed only during setup"
        geo = self.geo
        sq, tgt = geo.pair_src[idx], geo.pair_dst[idx]
        if not self.left[3 * seat + size - 1]:
            return f"seat {seat} has no size-{size} pyramid left"
        if self.owner[sq] != EMPTY:
            return f"{geo.names[sq]} is not empty"
        if self.owner[tgt] == NULL:
            return f"{geo.names[tgt]} is a null square"
        if self.owner[tgt] == EMPTY:
            return f"{geo.names[tgt]} is empty: a pyramid must point at an occupied square"
        return None

    def _why_not_setup(self, kind: int, sq: int) -> str | None:
        want = PUT_NULL if self.ply < self.num_seats // 2 else PUT_ROOT
        if kind != want:
            return f"seat {self.ply} must place a {'null' if want == PUT_NULL else 'root'} now"
        name = self.geo.names[sq]
        if self.owner[sq] != EMPTY:
            return f"{name} is not empty"
        if kind == PUT_NULL and sq in cut_squares(self.geo, self.owner):
            return f"a null on {name} would cut the board apart"
        return None

    def _place(self, seat: int, size: int, pid: int) -> None:
        """Put a pyramid (already checked legal), score it, update the valid pairs."""
        geo = self.geo
        sq = geo.pair_src[pid]
        tgt = geo.pair_dst[pid]
        owner = self.owner
        owner[sq] = seat
        self.size[sq] = size
        self.target[sq] = tgt
        self.left[3 * seat + size - 1] -= 1
        victim = owner[tgt]
        if victim >= 0 and victim != seat:
            self.scores[seat] -= self.size[tgt]
            self.scores[victim] += size
        self._occupy(sq)
        self.placed += 1
        self.passes = 0
        self.ply += 1
        self._legal = None
        if self.placed == PER_SIZE * len(SIZES) * self.num_seats:
            self.over = True

    def _occupy(self, sq: int) -> None:
        """sq became occupied and non-null: nothing may go on it, its empty
        neighbours may now point at it."""
        valid = self.valid
        valid.difference_update(self.geo.out_pairs[sq])
        owner = self.owner
        for nb, pid in self.geo.in_pairs[sq]:
            if owner[nb] == EMPTY:
                valid.add(pid)

    def _setup(self, kind: int, sq: int) -> None:
        if kind == PUT_NULL:
            self.owner[sq] = NULL
            self.valid.difference_update(self.geo.out_pairs[sq])
        else:
            self.owner[sq] = ROOT
            self._occupy(sq)
        self.ply += 1
        self._legal = None

    def _pass(self) -> None:
        """Unreachable under the rules (a move always exists); ends the game once every
        seat has passed in a row, so that it still always ends."""
        self.passes += 1
        self.ply += 1
        self._legal = None
        if self.passes >= self.num_seats:
            self.over = True


class BTT(Game):
    """Branches and Twigs and Thorns, 2 to 6 seats, on the wedge board or a rectangle."""

    id = "btt"
    name = "Branches and Twigs and Thorns"
    min_seats = 2
    max_seats = 6
    midgame_ply = 12
    options = (
        Option(
            "board", "wedge",
            "wedge: n sections of 4x4 around a centre (chessboard for 4); rect: an 8 x 2n rectangle",
            ("wedge", "rect"),
        ),
    )

    def _initial_state(self, seats: int, options: dict[str, str]) -> BTTState:
        return BTTState(seats, options)
