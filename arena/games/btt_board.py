"""The board of Branches and Twigs and Thorns and its notation: square names, the
wedge and rectangle layouts for 2 to 6 seats, adjacency, every action string and the
parse table, built once per (seats, board) and shared by all states; and the cut
squares where a null may not go. The rules engine is arena.games.btt."""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.base import GameError

FILES = "abcdefgh"
SECTION_LETTERS = "abcdef"
SIZES = (1, 2, 3)
PER_SIZE = 5
"""Each seat's stash: five pyramids of each size (15 in all)."""
START_SCORE = 5
CLOSED_RINGS = frozenset({3, 4, 6})
"""Seat counts whose ring of sections is closed (the last section joins the first)."""

# Codes in `BTTState.owner` (a seat number >= 0 means a pyramid of that seat).
EMPTY = -1
NULL = -2
ROOT = -3

# Parsed action kinds.
PYRAMID = 0
PUT_NULL = 1
PUT_ROOT = 2
PASS = 3

PASS_ACTION = "pass"

Move = tuple[int, int, int]
"""A parsed action: (kind, pyramid size or 0, pair id for a pyramid or square index)."""


@dataclass(frozen=True)
class Panel:
    """One rectangle of squares for drawing: a whole chessboard-like board, or one
    4 x 4 section of the 3-, 5- and 6-seat wedge boards. `rows` are top row first and
    hold square indices (None where the panel has no square)."""

    title: str
    rows: tuple[tuple[int | None, ...], ...]
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]


class Geometry:
    """Everything fixed by (seats, board): built once, shared by every state."""

    def __init__(self, seats: int, board: str) -> None:
        self.seats = seats
        self.board = board
        names, adjacency, section, panels = _build_board(seats, board)
        self.names: tuple[str, ...] = tuple(names)
        self.index: dict[str, int] = {name: i for i, name in enumerate(names)}
        self.adj: tuple[tuple[int, ...], ...] = tuple(tuple(sorted(a)) for a in adjacency)
        self.section: tuple[int, ...] = tuple(section)
        """Section of each square (wedge boards); 0 everywhere on a rectangle."""
        self.panels: tuple[Panel, ...] = panels
        self.position: dict[int, tuple[int, int, int]] = {
            sq: (p, r, c)
            for p, panel in enumerate(panels)
            for r, row in enumerate(panel.rows)
            for c, sq in enumerate(row)
            if sq is not None
        }
        """Square -> (panel, row, column) in `panels`."""
        self._build_pairs()
        self._build_actions()
        self.empty_cuts: frozenset[int] = frozenset(_articulation_points(self.adj, [EMPTY] * len(self.names)))
        """The cut squares of a board without nulls (every game's first), found once."""

    def _build_pairs(self) -> None:
        """Number every (square, adjacent target) pair in the ASCII order of
        "<sq>><target>", so sorting pair ids sorts the pyramid actions of one size."""
        pairs = [(s, t) for s in range(len(self.names)) for t in self.adj[s]]
        pairs.sort(key=lambda p: f"{self.names[p[0]]}>{self.names[p[1]]}")
        self.pair_src: tuple[int, ...] = tuple(s for s, _ in pairs)
        self.pair_dst: tuple[int, ...] = tuple(t for _, t in pairs)
        self.pair_id: dict[tuple[int, int], int] = {p: i for i, p in enumerate(pairs)}
        self.out_pairs: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.pair_id[(s, t)] for t in self.adj[s]) for s in range(len(self.names))
        )
        """Per square: the pairs placing a pyramid on it (dead once it is occupied)."""
        self.in_pairs: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple((t, self.pair_id[(t, s)]) for t in self.adj[s]) for s in range(len(self.names))
        )
        """Per square: (neighbour, pair id) for pointing at it from each neighbour."""

    def _build_actions(self) -> None:
        """Every action string of the board, and the table parsing them back."""
        names = self.names
        self.move_strings: tuple[tuple[str, ...], ...] = tuple(
            tuple(f"{size}{names[s]}>{names[t]}" for s, t in zip(self.pair_src, self.pair_dst))
            for size in SIZES
        )
        self.by_name: tuple[int, ...] = tuple(sorted(range(len(names)), key=lambda s: names[s]))
        """Squares in ASCII order of their names (the order of setup actions)."""
        self.null_strings = tuple(f"N{name}" for name in names)
        self.root_strings = tuple(f"R{name}" for name in names)
        parse: dict[str, Move] = {}
        for size, strings in zip(SIZES, self.move_strings):
            for pid, text in enumerate(strings):
                parse[text] = (PYRAMID, size, pid)
        for sq in range(len(names)):
            parse[self.null_strings[sq]] = (PUT_NULL, 0, sq)
            parse[self.root_strings[sq]] = (PUT_ROOT, 0, sq)
        parse[PASS_ACTION] = (PASS, 0, 0)
        self.parse = parse


def _build_board(seats: int, board: str) -> tuple[list[str], list[set[int]], list[int], tuple[Panel, ...]]:
    """Names, adjacency sets, section per square and drawing panels of a board."""
    if board == "rect":
        return _rectangle(2 * seats)
    if seats in (2, 4):
        return _chess_wedge(seats)
    return _lettered_wedge(seats)


def _rectangle(ranks: int) -> tuple[list[str], list[set[int]], list[int], tuple[Panel, ...]]:
    """An 8 x ranks rectangle, files a-h, ranks from 1, orthogonal adjacency."""
    names = [f"{FILES[f]}{r + 1}" for r in range(ranks) for f in range(8)]
    adjacency: list[set[int]] = [set() for _ in names]
    for r in range(ranks):
        for f in range(8):
            here = r * 8 + f
            if f < 7:
                _link(adjacency, here, here + 1)
            if r < ranks - 1:
                _link(adjacency, here, here + 8)
    panel = Panel(
        title="",
        rows=tuple(tuple(r * 8 + f for f in range(8)) for r in reversed(range(ranks))),
        row_labels=tuple(str(r + 1) for r in reversed(range(ranks))),
        col_labels=tuple(FILES),
    )
    return names, adjacency, [0] * len(names), (panel,)


def _chess_wedge(seats: int) -> tuple[list[str], list[set[int]], list[int], tuple[Panel, ...]]:
    """The 2- and 4-seat wedge boards: the sections are quadrants of a chessboard, so
    they are exactly the rectangles, with squares numbered section by section."""
    adjacency, section = _wedge_graph(seats)
    names = [_chess_name(s, i, j) for s in range(seats) for i in range(4) for j in range(4)]
    index = {name: k for k, name in enumerate(names)}
    ranks = 2 * seats
    panel = Panel(
        title="",
        rows=tuple(tuple(index[f"{FILES[f]}{r + 1}"] for f in range(8)) for r in reversed(range(ranks))),
        row_labels=tuple(str(r + 1) for r in reversed(range(ranks))),
        col_labels=tuple(FILES),
    )
    return names, adjacency, section, (panel,)


def _chess_name(s: int, i: int, j: int) -> str:
    """Chess name of local square (i, j) of section s: section 0 is a1-d4 with (0, 0)
    on d4, and each next section is the previous one turned a quarter round the centre."""
    file, rank = [(3 - i, 3 - j), (4 + j, 3 - i), (4 + i, 4 + j), (3 - j, 4 + i)][s]
    return f"{FILES[file]}{rank + 1}"


def _lettered_wedge(seats: int) -> tuple[list[str], list[set[int]], list[int], tuple[Panel, ...]]:
    """The 3-, 5- and 6-seat wedge boards, squares named <section><i><j>."""
    names = [f"{SECTION_LETTERS[s]}{i}{j}" for s in range(seats) for i in range(4) for j in range(4)]
    adjacency, section = _wedge_graph(seats)
    panels = tuple(
        Panel(
            title=f"section {SECTION_LETTERS[s]}",
            # Drawn as section 0 sits on the chessboard: (0, 0) top right, i growing to
            # the left, j growing downwards; the next section joins the right edge.
            rows=tuple(tuple(16 * s + 4 * i + j for i in (3, 2, 1, 0)) for j in range(4)),
            row_labels=("0", "1", "2", "3"),
            col_labels=("3", "2", "1", "0"),
        )
        for s in range(seats)
    )
    return names, adjacency, section, panels


def _wedge_graph(seats: int) -> tuple[list[set[int]], list[int]]:
    """Adjacency and section of each square of a wedge board: sections of 4 x 4,
    square 16 s + 4 i + j for local (i, j), joined by the seams of rules/btt.md."""
    adjacency: list[set[int]] = [set() for _ in range(16 * seats)]
    for s in range(seats):
        for i in range(4):
            for j in range(4):
                here = 16 * s + 4 * i + j
                if i < 3:
                    _link(adjacency, here, here + 4)
                if j < 3:
                    _link(adjacency, here, here + 1)
    seams = seats if seats in CLOSED_RINGS else seats - 1
    for s in range(seams):
        nxt = (s + 1) % seats
        for j in range(4):
            _link(adjacency, 16 * s + j, 16 * nxt + 4 * j)
    return adjacency, [k // 16 for k in range(16 * seats)]


def _link(adjacency: list[set[int]], a: int, b: int) -> None:
    adjacency[a].add(b)
    adjacency[b].add(a)


_GEOMETRIES: dict[tuple[int, str], Geometry] = {}


def geometry(seats: int, board: str = "wedge") -> Geometry:
    """The shared geometry of a board, built on first use."""
    key = (seats, board)
    geo = _GEOMETRIES.get(key)
    if geo is None:
        if board not in ("wedge", "rect") or not 2 <= seats <= 6:
            raise GameError(f"btt has no {seats}-seat {board!r} board")
        geo = _GEOMETRIES[key] = Geometry(seats, board)
    return geo


def square_names(seats: int, board: str = "wedge") -> list[str]:
    """Names of the squares of a board, in the engine's square order."""
    return list(geometry(seats, board).names)


def adjacency(seats: int, board: str = "wedge") -> dict[str, list[str]]:
    """Each square's orthogonal neighbours by name (for bots, docs and tests)."""
    geo = geometry(seats, board)
    return {geo.names[s]: [geo.names[t] for t in geo.adj[s]] for s in range(len(geo.names))}


def board_layout(seats: int, board: str = "wedge") -> tuple[Panel, ...]:
    """How to draw the board: one chessboard-like panel, or one panel per section."""
    return geometry(seats, board).panels


def cut_squares(geo: Geometry, owner: list[int]) -> set[int] | frozenset[int]:
    """Non-null squares whose removal disconnects the other non-null squares
    (articulation points, found with one iterative depth-first search); a null may go
    on every empty square not in this set. Assumes the non-null squares are connected,
    which holds because every null was placed under this rule. Only nulls cut, so a
    board without one has the geometry's own (found once, not at every game's first
    decision)."""
    return geo.empty_cuts if NULL not in owner else _articulation_points(geo.adj, owner)


def _articulation_points(adj: tuple[tuple[int, ...], ...], owner: list[int]) -> set[int]:
    """The articulation points of the graph of non-null squares (iterative DFS)."""
    start = next(s for s, o in enumerate(owner) if o != NULL)
    depth = {start: 0}
    low = {start: 0}
    cuts: set[int] = set()
    root_children = 0
    stack: list[tuple[int, int, int]] = [(start, -1, 0)]
    while stack:
        node, parent, k = stack.pop()
        neighbours = adj[node]
        if k < len(neighbours):
            stack.append((node, parent, k + 1))
            nxt = neighbours[k]
            if owner[nxt] == NULL or nxt == parent:
                continue
            if nxt in depth:
                low[node] = min(low[node], depth[nxt])
            else:
                depth[nxt] = low[nxt] = depth[node] + 1
                stack.append((nxt, node, 0))
            continue
        if parent == -1:
            continue
        low[parent] = min(low[parent], low[node])
        if parent == start:
            root_children += 1
        elif low[node] >= depth[parent]:
            cuts.add(parent)
    if root_children > 1:
        cuts.add(start)
    return cuts
