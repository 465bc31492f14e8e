"""The leaderboard: per-bot results, ratings with 95% intervals, head-to-head
crosstable, and their exports (rich table, markdown, CSV, JSON). Each bot's count of
games voided by an error of the arena is shown too, and a bot at too many of them is
named: a game voided by the arena is played again and never scored, so a bot that can
provoke such errors could otherwise escape its losses."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from rich import box
from rich.table import Table

from arena.league.config import Anchor
from arena.league.store import StoredFault, StoredGame
from arena.referee.timeouts import TimedGame, TimeOutCount
from arena.stats.ratings import PairResult, Rating, anchored, elo_fit, openskill_ratings
from arena.stats.tally import ResultTally
from arena.termination import Termination, fault_column
from arena.timecontrol import Basis

TIME_OUT = str(Termination.TIME_OUT)


@dataclass
class BotStanding(ResultTally):
    """One bot's line of the leaderboard."""

    name: str = ""
    rating: Rating = Rating(0.0, math.inf)
    faults: dict[str, int] = field(default_factory=dict)
    voids: int = 0
    """Attempts at its games that an error of the arena voided (each played again)."""

    @property
    def fault_count(self) -> int:
        return sum(self.faults.values())


@dataclass
class Standings:
    """The leaderboard of a league after some of its games."""

    seats: int
    rating_kind: str
    rows: list[BotStanding]
    """In leaderboard order (best first)."""
    names: list[str]
    """Bot names in league order (the crosstable's rows and columns)."""
    head_to_head: list[list[tuple[float, int]]]
    """[i][j]: points of bot i against bot j (1 ahead, 0.5 level) and their meetings."""
    games: int
    score_name: str = "score"
    anchor: Anchor | None = None
    """The bot whose rating is pinned, when it is (it has played)."""
    anchor_note: str = ""
    """Why a wanted anchor is not applied (its bot has no game yet), if it is not."""
    time_outs: TimeOutCount | None = None
    """The games decided by time, per bot, counted in the order they finished (set by
    the league's summary, arena.session.league; None where nobody counted them)."""

    @property
    def voided(self) -> bool:
        """Whether any bot's game was voided (the void column is shown only then)."""
        return any(row.voids for row in self.rows)


MANY_VOIDS = 3
"""A bot whose games were voided more often than this is named under the standings."""


def compute_standings(names: list[str], seats: int, games: list[StoredGame], score_name: str = "score",
                      voids: Iterable[tuple[tuple[int, ...], int]] = (), anchor: Anchor | None = None) -> Standings:
    """Standings from finished games: Elo for 2 seats, OpenSkill for more. `voids`
    holds (bots seated, attempts voided) per game the arena's errors voided. With
    `anchor`, that bot's rating is pinned at its value (once it has played)."""
    rows = [BotStanding(name=name) for name in names]
    for seated, attempts in voids:
        for bot in set(seated):
            rows[bot].voids += attempts
    h2h = [[(0.0, 0) for _ in names] for _ in names]
    for game in games:
        firsts = sum(1 for r in game.ranks if r == 1)
        for seat, bot in enumerate(game.seats):
            rank = game.ranks[seat]
            rows[bot].add(rank, firsts, game.scores[seat] if game.scores is not None else None)
            for other_seat, other in enumerate(game.seats):
                if other != bot:
                    other_rank = game.ranks[other_seat]
                    points = 1.0 if rank < other_rank else 0.5 if rank == other_rank else 0.0
                    total, meetings = h2h[bot][other]
                    h2h[bot][other] = (total + points, meetings + 1)
        for fault in game.faults:
            kind = fault_column(fault.reason)
            faults = rows[fault.bot].faults
            faults[kind] = faults.get(kind, 0) + 1
    pinned = names.index(anchor.bot) if anchor is not None and anchor.bot in names else None
    if seats == 2:
        kind = "Elo"
        ratings = elo_fit(len(names), [_pair(g) for g in games], anchor=pinned,
                          anchor_value=anchor.value if anchor else 0.0)
    else:
        kind = "OpenSkill"
        ratings = openskill_ratings(len(names), [list(zip(g.seats, g.ranks)) for g in games])
        if pinned is not None and anchor is not None:
            ratings = anchored(ratings, pinned, anchor.value)
    for row, rating in zip(rows, ratings):
        row.rating = rating
    order = sorted(rows, key=lambda r: (-r.rating.value, -(r.wins + r.draws / 2), r.name))
    standings = Standings(seats, kind, order, list(names), h2h, len(games), score_name)
    if anchor is not None:
        if pinned is not None and rows[pinned].games:
            standings.anchor = anchor
        else:
            standings.anchor_note = (f"{anchor.bot} has played no game yet: ratings are relative to the field's "
                                     f"average until it has")
    return standings


def count_time_outs(names: list[str], games: Iterable[StoredGame], basis: Basis = "wall") -> TimeOutCount:
    """The league's games decided by time, per bot (`games` in the order they
    finished, their seats numbered as `names`)."""
    return TimeOutCount.of((TimedGame(tuple(names[b] for b in game.seats),
                                      tuple((f.seat, f.detail) for f in game.faults if f.reason == TIME_OUT))
                            for game in games), basis, names)


def time_out_warnings(standings: Standings) -> list[str]:
    """The warning of time-outs that may be the machine's doing, if there is one."""
    warning = standings.time_outs.warning("league") if standings.time_outs is not None else None
    return [warning] if warning else []


def restrict(names: list[str], games: list[StoredGame], voids: Iterable[tuple[tuple[int, ...], int]],
             shown: list[int]) -> tuple[list[str], list[StoredGame], list[tuple[tuple[int, ...], int]]]:
    """The names, games and voids of the bots numbered `shown` alone, renumbered in
    that order: a game with any other bot is left out (a bot removed from a league
    takes its games out of the table with it)."""
    new = {old: i for i, old in enumerate(shown)}
    kept = []
    for game in games:
        if all(bot in new for bot in game.seats):
            faults = tuple(StoredFault(f.seat, new[f.bot], f.reason, f.detail, f.ply) for f in game.faults)
            kept.append(replace(game, seats=tuple(new[b] for b in game.seats), faults=faults))
    kept_voids = [(tuple(new[b] for b in seated), n) for seated, n in voids if all(b in new for b in seated)]
    return [names[i] for i in shown], kept, kept_voids


def _pair(game: StoredGame) -> PairResult:
    a, b = game.ranks
    return PairResult(game.seats[0], game.seats[1], 1.0 if a < b else 0.5 if a == b else 0.0)


# ---- presentation -------------------------------------------------------------------------


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _rating_text(rating: Rating, kind: str, anchor: Anchor | None = None, pinned: bool = False) -> str:
    """Elo relative to the field's average (+35 ± 20), or to an anchor pinned at 0;
    absolute figures (1535 ± 20) under an anchor pinned elsewhere; OpenSkill's mu
    (27.1 ± 4.2). The anchor's own: '+0 (anchor)'."""
    if math.isinf(rating.error):
        return "-"
    signed = anchor is None or anchor.value == 0
    if kind == "Elo":
        value = f"{rating.value:+.0f}" if signed else f"{rating.value:.0f}"
        return f"{value} (anchor)" if pinned else f"{value} ± {rating.error:.0f}"
    return f"{rating.value:.1f} (anchor)" if pinned else f"{rating.value:.1f} ± {rating.error:.1f}"


def anchor_line(standings: Standings) -> str:
    """What the ratings are relative to, for the exports' notes ("" without an anchor)."""
    if standings.anchor is not None:
        return (f"{standings.rating_kind} anchored: {standings.anchor.describe()} (pinned; the others relative "
                "to it)")
    return standings.anchor_note


def _fault_text(row: BotStanding) -> str:
    return ", ".join(f"{n} {k}" for k, n in sorted(row.faults.items())) or "0"


def void_warnings(standings: Standings) -> list[str]:
    """A line for each bot whose games were voided more than MANY_VOIDS times: an
    error of the arena that recurs at one bot's games may be that bot's doing."""
    return [f"{row.name}: {row.voids} attempts at its games were voided by an error of the arena (replayed, never "
            "scored); if its play provokes the error, it escapes its losses: see the league's logs/arena-errors.log "
            "and report it" for row in standings.rows if row.voids > MANY_VOIDS]


def leaderboard_rows(standings: Standings) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the leaderboard as text (shared by every format)."""
    header = ["rank", "bot", f"{standings.rating_kind} (95%)", "games"]
    header += ["W", "D", "L"] if standings.seats == 2 else ["mean place", "wins"]
    header += [standings.score_name, f"mean {standings.score_name}", "faults"]
    header += ["void"] if standings.voided else []
    lines = []
    for rank, row in enumerate(standings.rows, start=1):
        pinned = standings.anchor is not None and row.name == standings.anchor.bot
        line = [str(rank), row.name, _rating_text(row.rating, standings.rating_kind, standings.anchor, pinned),
                str(row.games)]
        if standings.seats == 2:
            line += [str(row.wins), str(row.draws), str(row.losses)]
        else:
            line += [f"{row.mean_placing:.2f}", str(row.wins)]
        line += [_number(row.score), f"{row.mean_score:.2f}", _fault_text(row)]
        line += [str(row.voids)] if standings.voided else []
        lines.append(line)
    return header, lines


def crosstable_rows(standings: Standings) -> tuple[list[str], list[list[str]]]:
    """Head-to-head points 'p/n' of each row bot against each column bot."""
    order = [standings.names.index(r.name) for r in standings.rows]
    header = ["bot", *[standings.names[j] for j in order]]
    lines = []
    for i in order:
        line = [standings.names[i]]
        for j in order:
            points, meetings = standings.head_to_head[i][j]
            line.append("" if i == j else f"{_number(points)}/{meetings}" if meetings else "-")
        lines.append(line)
    return header, lines


def rich_tables(standings: Standings, title: str) -> tuple[Table, Table]:
    """The leaderboard and the crosstable for the terminal, readable at 80 columns: no
    vertical rules, headers that wrap at their spaces, no column narrower than its
    longest word (so nothing is cut: "OpenSkill", "time-out"), and the crosstable's
    columns headed by rank, not by name."""
    warnings = void_warnings(standings)
    board = terminal_leaderboard(standings)
    board.title = f"{title}: {standings.games} game(s)"
    notes = [f"warning: {w}" for w in warnings] + ([anchor_line(standings)] if anchor_line(standings) else [])
    board.caption = "\n".join(notes) or None
    board.caption_style = "yellow"
    header, lines = crosstable_rows(standings)
    cross = Table(title="head to head (points/games; 1 for placing ahead, ½ level)", box=box.SIMPLE_HEAD,
                  padding=0, pad_edge=False)
    cross.add_column("bot", overflow="fold", min_width=min(NAME_WIDTH, max((len(line[0]) + 3 for line in lines),
                                                                            default=3)))
    for rank in range(1, len(header)):
        cross.add_column(str(rank), justify="right", min_width=max(len(line[rank]) for line in lines) if lines else 1)
    for rank, line in enumerate(lines, start=1):
        cross.add_row(f"{rank} {line[0]}", *line[1:])
    return board, cross


def terminal_leaderboard(standings: Standings, most_rows: int | None = None) -> Table:
    """The leaderboard as a terminal table (the first `most_rows` rows), readable at 80
    columns (see rich_tables): a rating cell (`+35 ± 20`) is never wrapped, the other
    columns give way first."""
    header, lines = leaderboard_rows(standings)
    lines = lines[:most_rows] if most_rows is not None else lines
    board = Table(box=box.SIMPLE_HEAD, padding=0, pad_edge=False)
    for index, column in enumerate(header):
        cells = [_heading(column), *(line[index] for line in lines)]
        rating = column.endswith("(95%)")
        widest = max(len(cell) if rating and cell is not cells[0] else _longest_word(cell) for cell in cells)
        board.add_column(cells[0], justify="left" if column == "bot" else "right", overflow="fold",
                         min_width=min(widest, NAME_WIDTH) if column == "bot" else widest, no_wrap=rating)
    for line in lines:
        board.add_row(*line)
    return board


NAME_WIDTH = 12
"""Columns a long bot name may be folded to in a narrow terminal (never cut)."""


def _heading(column: str) -> str:
    """A leaderboard header as the terminal shows it: `#`, `mean` over `place`."""
    if column == "rank":
        return "#"
    return column.replace(" (95%)", "\n(95%)").replace("mean ", "mean\n")


def _longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=1)


def to_markdown(standings: Standings, title: str) -> str:
    def table(header: list[str], lines: list[list[str]]) -> str:
        rows = [header, ["---"] * len(header), *lines]
        return "\n".join("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows)

    warnings = "".join(f"\n\n**Warning:** {w}" for w in void_warnings(standings) + time_out_warnings(standings))
    anchor = f"\n\n{anchor_line(standings)}" if anchor_line(standings) else ""
    time_outs = f"\n\n{standings.time_outs.line()}" if standings.time_outs is not None else ""
    return (f"## {title}\n\n{standings.games} game(s)\n\n" + table(*leaderboard_rows(standings)) + anchor + time_outs
            + warnings + "\n\n### Head to head\n\n" + table(*crosstable_rows(standings)) + "\n")


def to_csv(standings: Standings) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    fault_kinds = sorted({k for row in standings.rows for k in row.faults})
    void = ["void"] if standings.voided else []
    writer.writerow(["rank", "bot", "rating", "rating_error95", "rating_kind", "games", "wins", "draws", "losses",
                     "mean_place", "score", "mean_score", "faults", *fault_kinds, *void,
                     *(["anchor"] if standings.anchor else [])])
    for rank, row in enumerate(standings.rows, start=1):
        writer.writerow([rank, row.name, f"{row.rating.value:.2f}", f"{row.rating.error:.2f}", standings.rating_kind,
                         row.games, row.wins, row.draws, row.losses, f"{row.mean_placing:.3f}",
                         _number(row.score), f"{row.mean_score:.3f}", row.fault_count,
                         *[row.faults.get(k, 0) for k in fault_kinds], *([row.voids] if standings.voided else []),
                         *([int(row.name == standings.anchor.bot)] if standings.anchor else [])])
    return out.getvalue()


def to_json(standings: Standings, title: str) -> str:
    data: dict[str, Any] = {
        "league": title, "games": standings.games, "rating": standings.rating_kind,
        "anchor": None if standings.anchor is None else {"bot": standings.anchor.bot,
                                                          "rating": standings.anchor.value},
        "standings": [
            {"rank": rank, "bot": row.name,
             "rating": round(row.rating.value, 2),
             "rating_error95": None if math.isinf(row.rating.error) else round(row.rating.error, 2),
             "games": row.games, "wins": row.wins, "draws": row.draws, "losses": row.losses,
             "mean_place": round(row.mean_placing, 4), "score": row.score,
             "mean_score": round(row.mean_score, 4), "faults": dict(sorted(row.faults.items())), "void": row.voids,
             "anchor": standings.anchor is not None and row.name == standings.anchor.bot}
            for rank, row in enumerate(standings.rows, start=1)
        ],
        "head_to_head": {
            standings.names[i]: {standings.names[j]: {"points": p, "games": n}
                                 for j, (p, n) in enumerate(line) if n}
            for i, line in enumerate(standings.head_to_head)
        },
        "time_outs": None if standings.time_outs is None else standings.time_outs.document("league"),
        "warnings": void_warnings(standings) + ([standings.anchor_note] if standings.anchor_note else [])
        + time_out_warnings(standings),
    }
    return json.dumps(data, indent=2) + "\n"
