"""Output at 80 columns and for log files: the league's live view keeps its counts,
elapsed time and ETA whole whatever the league's name; `arena match`'s progress lines
fit 80 columns (the whole line is the final report's); a rating cell never wraps; and
a league whose output is not a terminal prints a plain progress line now and then."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console
from rich.table import Table

from arena.cli.common import ArenaConsole
from arena.league.config import Anchor, load_league
from arena.league.live import LiveLeagueView, PlainProgress, progress_line
from arena.league.runner import LeagueProgress
from arena.league.standings import BotStanding, Standings, rich_tables
from arena.league.store import StoredGame
from arena.stats.elo_text import MatchElo
from arena.stats.ratings import Rating
from arena.stats.sprt import PairStats, SprtParameters
from tests.helpers.cli import run_cli

NARROW = {"COLUMNS": "80", "TERMINAL_WIDTH": "80"}
LONG_NAME = "the-organisers-very-long-night-league-of-the-second-round-with-every-bot-in-it"


def league_file(tmp_path: Path, name: str = "tiny", games: int = 2) -> Path:
    path = tmp_path / "l.toml"
    path.write_text(f'name = "{name}"\ngame = "btt"\ngames_per_pairing = {games}\nconcurrency = 1\n'
                    '[[bots]]\nname = "random"\ncommand = "random"\n[[bots]]\nname = "greedy"\ncommand = "greedy"\n')
    return path


def export(*renderables: object, width: int = 80) -> str:
    console = ArenaConsole(width=width, record=True, file=io.StringIO())
    for renderable in renderables:
        console.print(renderable)
    return console.export_text()


def test_the_live_view_keeps_counts_elapsed_and_eta_whole_with_a_long_league_name(tmp_path: Path) -> None:
    league = load_league(league_file(tmp_path, LONG_NAME))
    progress = LeagueProgress(total=1200, done=345, games=[], played_now=10, in_flight=4)
    progress.started -= 3600  # an hour in: elapsed 1:00:00, ETA 1200-345 games at 6 min each
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(LiveLeagueView(league, progress))
    lines = console.export_text().splitlines()
    assert all(len(line) <= 80 for line in lines)
    status = [line for line in lines if "elapsed" in line]
    assert len(status) == 1, lines
    assert "345/1200 games done, 4 in flight, elapsed 1:00:00, ETA 85:30:00" in status[0]
    assert lines[0].startswith(LONG_NAME[:60]) and lines[0].endswith("…")  # the name is cut, not the figures


def test_a_match_line_fits_the_width_and_keeps_whose_elo_it_is() -> None:
    stats = PairStats([0, 0, 5, 3, 492])
    short = MatchElo("greedy", "random", stats)
    assert len(short.line()) > 80  # the final report's line, whole
    assert short.fitted_line(200) == short.line()
    for params in (None, SprtParameters()):
        line = short.fitted_line(80, params)
        assert len(line) <= 80 and line.startswith("greedy's Elo +") and " over random, LOS 100.0%, pairs 500" in line
        assert ("LLR " in line) == (params is not None)
    long = MatchElo("a-very-long-candidate-bot-name-v17", "baseline-engine-nightly-build-2024", stats)
    line = long.fitted_line(80, SprtParameters())
    assert len(line) <= 80 and line.startswith("a-very") and "…'s Elo +874 [+779, +1094] over baseli" in line
    bound = MatchElo("random", "zoo/illegal", PairStats([0, 0, 0, 0, 40])).fitted_line(80)
    assert bound.startswith("random's Elo > +") and "inf" not in bound


def test_every_progress_line_of_a_match_fits_80_columns() -> None:
    result = run_cli("match", "greedy", "random", "--game", "btt", "-n", "4", "--seed", "1", "--report-every", "1",
                     "--sprt", env=NARROW)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    rating = [k for k, line in enumerate(lines) if "'s Elo " in line and not line.startswith("Elo:")]
    final = next(k for k, line in enumerate(lines) if line.startswith("random vs greedy: random's Elo"))
    progress = [lines[k] for k in rating if k < final]
    assert len(progress) == 2, result.output  # a line a pair
    for line in progress:
        assert len(line) <= 80 and line.startswith("random's Elo ") and " over greedy, " in line, line
    assert "(pentanomial " in lines[final]  # the final line is whole


def wide_standings(kind: str, anchor: Anchor | None = None) -> Standings:
    """Standings whose table cannot fit 80 columns at its natural widths: long names,
    every kind of fault, voids, big counts."""
    names = ["stockfish-like-engine-v17", "b", "crashy-bot-nightly", "mcts-1000-playouts-v2"]
    rows = []
    for index, name in enumerate(names):
        row = BotStanding(name=name, rating=Rating(1535.0 - 100 * index if anchor else 35.0 - 20 * index, 123.0),
                          faults={"crashes": 12345, "illegal-move": 7, "malformed-reply": 23456, "time-outs": 99},
                          voids=4)
        row.games, row.wins, row.draws, row.losses, row.score = 123456, 12345, 23456, 34567, 1234567.5
        rows.append(row)
    return Standings(2 if kind == "Elo" else 3, kind, rows, names, [[(1.0, 1)] * 4] * 4, 370000, anchor=anchor)


def test_no_rating_cell_wraps_at_80_columns() -> None:
    for standings in (wide_standings("Elo"), wide_standings("Elo", Anchor("b", 1500.0)),
                      wide_standings("OpenSkill")):
        board, _ = rich_tables(standings, "night")
        text = export(board)
        for row in standings.rows:
            cell = re.escape(f"{row.rating.value:.0f}" if standings.rating_kind == "Elo" else f"{row.rating.value:.1f}")
            assert re.search(rf"{cell} (± \d|\(anchor\))", text), (row.name, text)


def test_a_table_made_uncut_keeps_a_rating_and_its_error_together() -> None:
    table = Table(*(f"Elo {k}" for k in range(7)))  # 7 ratings side by side: 85 columns with rules and padding
    for row in range(3):
        table.add_row(*(f"+{row}{k}5 ± 2{k}" for k in range(7)))
    text = export(table)
    for row in range(3):
        for k in range(7):
            assert f"+{row}{k}5 ± 2{k}" in text, text


def test_the_plain_progress_line_is_due_every_n_games_or_every_minute() -> None:
    due = PlainProgress(every_games=5, every_s=60.0, _at=0.0)
    assert not due.due(4, now=10.0)
    assert due.due(5, now=11.0)
    assert not due.due(9, now=70.0)
    assert due.due(9, now=71.5)  # a minute since the last line, whatever the games
    assert not due.due(10, now=72.0)


def test_the_plain_progress_line_names_the_leaders_within_80_columns(tmp_path: Path) -> None:
    league = load_league(league_file(tmp_path))
    games = [StoredGame(k, 0, (k % 2, 1 - k % 2), k, (1, 2), None, (), "normal", 30) for k in range(6)]
    progress = LeagueProgress(total=10, done=6, games=games, played_now=6, names=["random", "greedy"])
    line = progress_line(league, progress)
    assert re.fullmatch(r"\[6/10\] elapsed \d:\d\d:\d\d, ETA \d:\d\d:\d\d \| top: \S+ [+-]\d+, \S+ [+-]\d+", line), line
    assert len(line) <= 80


def test_a_league_run_into_a_log_prints_progress_lines(tmp_path: Path) -> None:
    result = run_cli("league", "run", str(league_file(tmp_path)), "--report-every", "1", env=NARROW)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    progress = [line for line in lines if " ETA " in line]
    assert len(progress) == 2, result.output  # a line after each of the 2 games
    assert progress[-1].startswith("[2/2] elapsed ") and "| top: " in progress[-1]
    assert any(line.startswith("[1/2] round ") for line in lines)  # the line per game is kept
    assert all(len(line) <= 80 for line in progress)
