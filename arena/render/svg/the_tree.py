"""The Tree drawn as the dominoes lie on the table: the tree of tiles in brick bond,
growing upwards from the start tile, and the tiles in hand.

Each half shows its symbol as on the physical tiles of the binary-coding set: a
central pip (1), a small circle (2) and a big circle (4), so the rule "the symbol above
has the rings of the one below, plus one" can be checked by eye. A placed tile is
edged in the colour of the seat that placed it; the last one is ringed. In the
omniscient replay view every hand is shown face up beside its owner's name, and the
supply face down in order, top first; in a seat's view (`View.seat`) only that seat's
hand is face up, the others' tiles and the supply are backs.
"""

from __future__ import annotations

from arena.games.the_tree import TheTreeState
from arena.games.the_tree_tiles import Tile, parse_placement
from arena.render.svg import View
from arena.render.svg.draw import caption, document, group, legend, legend_width, name_cell, num, rect, text
from arena.render.svg.palette import HIGHLIGHT, INK, MUTED, PAPER, seat_colour

HALF = 28.0
"""A half tile's side on the drawing (a tile is 2 x 1 halves)."""
ROW = HALF + 4
IVORY = "#fbf7ea"
BACK = "#3c5a7a"
MARGIN = 20.0
HAND_SCALE = 0.72


def _rings(value: int) -> list[str]:
    """The symbol of one half, centred on (0, 0)."""
    parts = []
    if value & 4:
        parts.append(f"<circle r=\"{num(HALF * 0.38)}\" fill=\"none\" stroke=\"{INK}\" stroke-width=\"1.6\"/>")
    if value & 2:
        parts.append(f"<circle r=\"{num(HALF * 0.22)}\" fill=\"none\" stroke=\"{INK}\" stroke-width=\"1.6\"/>")
    if value & 1:
        parts.append(f"<circle r=\"{num(HALF * 0.08)}\" fill=\"{INK}\" stroke=\"none\"/>")
    return parts


def _tile_shape(left: int, right: int) -> str:
    """Tile `left right` with its corner at the origin; its edge colour is inherited
    from the `<use>` (the seat that placed it)."""
    parts = [f"<rect x=\"1\" y=\"1\" width=\"{num(2 * HALF - 2)}\" height=\"{num(HALF - 2)}\" rx=\"4\" "
             f"fill=\"{IVORY}\" stroke-width=\"2.5\"/>",
             f"<line x1=\"{num(HALF)}\" y1=\"4\" x2=\"{num(HALF)}\" y2=\"{num(HALF - 4)}\" stroke=\"{INK}\" "
             f"stroke-width=\"0.8\"/>"]
    parts.append(group(_rings(left), transform=f"translate({num(HALF / 2)},{num(HALF / 2)})"))
    parts.append(group(_rings(right), transform=f"translate({num(1.5 * HALF)},{num(HALF / 2)})"))
    return group(parts, id=f"tt{left}{right}")


def defs(state: TheTreeState, view: View) -> str:
    tiles = [_tile_shape(a, b) for a in range(8) for b in range(8)]
    back = group([f"<rect x=\"1\" y=\"1\" width=\"{num(2 * HALF - 2)}\" height=\"{num(HALF - 2)}\" rx=\"4\" "
                  f"fill=\"{BACK}\" stroke=\"{INK}\"/>",
                  f"<line x1=\"{num(HALF)}\" y1=\"4\" x2=\"{num(HALF)}\" y2=\"{num(HALF - 4)}\" stroke=\"#8aa4c0\"/>"],
                 id="tt-back")
    return "".join(tiles) + back


def _tree_extent(state: TheTreeState) -> tuple[int, int, int]:
    xs = [x for x, _ in state.cells] or [0, 1]
    ys = [y for _, y in state.cells] or [0]
    return min(xs), max(xs), max(ys)


def _place(x: int, y: int, low: int, top: int) -> tuple[float, float]:
    """The corner of cell (x, y) on the drawing (row 0 at the bottom)."""
    return MARGIN + (x - low) * HALF, MARGIN + (top - y) * ROW


def spot(state: TheTreeState, action: str) -> str | None:
    """The cell a placement's left half goes on, `x,y` (tiles and turns share it)."""
    move = parse_placement(action)
    return None if move is None else f"{move[2]},{move[3]}"


def _hand_row(tiles: list[Tile] | int, x: float, y: float) -> list[str]:
    """A row of tiles in hand at (x, y): face up for a list, that many backs for a count."""
    step = (2 * HALF + 4) * HAND_SCALE
    out = []
    if isinstance(tiles, int):
        for k in range(tiles):
            out.append(f"<use href=\"#tt-back\" transform=\"translate({num(x + k * step)},{num(y)}) "
                       f"scale({HAND_SCALE})\"/>")
        return out
    for k, (a, b) in enumerate(tiles):
        out.append(f"<use href=\"#tt{a}{b}\" stroke=\"{INK}\" transform=\"translate({num(x + k * step)},{num(y)}) "
                   f"scale({HAND_SCALE})\" class=\"hand-tile\"/>")
    return out


def draw(state: TheTreeState, view: View) -> str:
    low, high, top = _tree_extent(state)
    # Room around the tree for the next tiles (one row above, a tile each side).
    low, high, top = low - 2, high + 2, top + 1
    tree_w = (high - low + 1) * HALF
    parts = []
    last_index = len(state.tiles) - 1 if view.last and parse_placement(view.last) else -1
    for index, ((left, right, x, y), seat) in enumerate(zip(state.tiles, state.placers, strict=True)):
        px, py = _place(x, y, low, top)
        colour = seat_colour(seat) if seat >= 0 else MUTED
        parts.append(f"<use href=\"#tt{left}{right}\" x=\"{num(px)}\" y=\"{num(py)}\" stroke=\"{colour}\" "
                     f"class=\"tile\" data-seat=\"{seat}\"/>")
        if index == last_index:
            parts.append(rect(px - 2, py - 2, 2 * HALF + 4, HALF + 4, "none", HIGHLIGHT, stroke_width=3.5,
                              rx=5, class_="last"))
    for name in view.spots:
        x, y = (int(v) for v in name.split(","))
        px, py = _place(x, y, low, top)
        parts.append(rect(px + 2, py + 2, 2 * HALF - 4, HALF - 4, "#ffffff", INK, fill_opacity=0.5,
                          stroke_dasharray="3 2", rx=4, class_="spot", data_spot=name))
    base_y = MARGIN + (top + 1) * ROW
    parts.append(f"<line x1=\"{num(MARGIN)}\" y1=\"{num(base_y + 2)}\" x2=\"{num(MARGIN + tree_w)}\" "
                 f"y2=\"{num(base_y + 2)}\" stroke=\"{MUTED}\"/>")
    # Hands: each seat's under the tree, beside its name.
    hands_y = base_y + 18
    row_h = HALF * HAND_SCALE + 10
    hand_parts = []
    for seat in range(state.num_seats):
        hand: list[Tile] | int = sorted(state.hands[seat])
        if view.seat is not None and seat != view.seat:
            hand = len(state.hands[seat])
        row_y = hands_y + seat * row_h
        name = view.names[seat] if seat < len(view.names) else f"seat {seat}"
        hand_parts.append(name_cell(MARGIN, row_y + HALF * HAND_SCALE * 0.7, name, 68, 11,
                                    class_="hand-name", data_seat=seat))
        hand_parts.append(rect(MARGIN + 76, row_y, 5, HALF * HAND_SCALE, seat_colour(seat), class_="hand-swatch",
                               data_seat=seat))
        hand_parts += _hand_row(hand, MARGIN + 86, row_y)
    supply_y = hands_y + state.num_seats * row_h + 14
    supply: list[Tile] | int = list(state.supply) if view.seat is None else len(state.supply)
    supply_label = "supply, top first" if view.seat is None else f"supply: {len(state.supply)} face down"
    hand_parts.append(text(MARGIN, supply_y - 2, supply_label, 11, MUTED))
    rows = 0
    if isinstance(supply, list):
        per_row = 12
        for start in range(0, len(supply), per_row):
            hand_parts += _hand_row(supply[start:start + per_row], MARGIN, supply_y + 4 + rows * row_h)
            rows += 1
    else:
        hand_parts += _hand_row(min(supply, 12), MARGIN, supply_y + 4)
        rows = 1 if supply else 0
    legend_y = supply_y + 8 + max(rows, 1) * row_h
    notes = [f"{len(state.hands[s])} in hand" + (" · finished" if s in state.finished else "")
             for s in range(state.num_seats)]
    to_move = state.current()
    names, height = legend(view.names, MARGIN, legend_y, notes, to_move if to_move >= 0 else None)
    width = max(tree_w + 2 * MARGIN, 86 + 2 * MARGIN + 12 * (2 * HALF + 4) * HAND_SCALE,
                legend_width(view.names, notes) + 2 * MARGIN)
    total = legend_y + height + (22 if view.status else 4)
    body = [f"<rect width=\"{num(width)}\" height=\"{num(total)}\" fill=\"{PAPER}\"/>",
            group(parts, class_="tree"), group(hand_parts, class_="hands"), *names]
    if view.status:
        body.append(caption(MARGIN, total - 8, view.status))
    return document(width, total, body, title=f"The Tree, {state.num_seats} seats")
