"""Match summaries for people: one line per game, one table per match."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.table import Table

from arena.cli.common import console, warn
from arena.games import GAMES
from arena.games.base import Game
from arena.referee.match import MatchResult
from arena.referee.outcome import GameOutcome
from arena.referee.timeouts import TimeOutCount, count_outcomes, termination_text
from arena.stats.tally import ResultTally
from arena.timecontrol import Basis


def _score(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def outcome_line(index: int, outcome: GameOutcome) -> str:
    """'game 1: greedy #1 (7), random #2 (3)  [normal]'; a game ended on time says who
    and by how much ('[time-out: greedy answered after 419 ms, limit 100 ms]'), then
    every fault in full."""
    record = outcome.record
    unit = GAMES[record.game_id].score_name if record.game_id in GAMES else "score"
    unit = "" if unit == "score" else f" {unit}"
    parts = []
    for seat, rank in enumerate(outcome.ranks):
        name = record.tags.get(f"Player{seat}", f"seat {seat}")
        score = f" ({_score(outcome.scores[seat])}{unit})" if outcome.scores else ""
        parts.append(f"{name} #{rank}{score}")
    if outcome.void:
        return (f"game {index + 1}: void [{outcome.termination}]: "
                f"{record.tags.get('TerminationDetail', '')}")
    text = f"game {index + 1}: " + ", ".join(parts) + f"  [{termination_text(outcome)}]"
    for fault in outcome.faults:
        when = "at start-up" if fault.ply == 0 else f"at ply {fault.ply}"
        text += f"\n  seat {fault.seat} {fault.reason} {when}: {fault.detail}"
    return text


@dataclass
class BotTotals(ResultTally):
    faults: int = 0


def totals(result: MatchResult) -> list[BotTotals]:
    """Per bot: wins (sole rank 1), draws (shared rank 1), losses, placings, scores."""
    rows = [BotTotals() for _ in result.names]
    for outcome, seats in zip(result.outcomes, result.seatings, strict=True):
        if outcome.void:
            continue
        firsts = sum(1 for r in outcome.ranks if r == 1)
        for seat, bot in enumerate(seats):
            row = rows[bot]
            row.add(outcome.ranks[seat], firsts, outcome.scores[seat] if outcome.scores else None)
            row.faults += sum(1 for f in outcome.faults if f.seat == seat)
    return rows


def match_table(result: MatchResult, game: Game) -> Table:
    """Wins/draws/losses, mean placing, total and mean game score, faults per bot."""
    played = sum(1 for o in result.outcomes if not o.void)
    void = len(result.outcomes) - played
    table = Table(title=f"{game.name}: {played} game(s)" + (f", {void} void" if void else ""))
    score = game.score_name
    for column in ("bot", "games", "wins", "draws", "losses", "mean place", score, f"mean {score}", "faults"):
        table.add_column(column, justify="left" if column == "bot" else "right", no_wrap=column == "bot")
    for name, row in zip(result.names, totals(result), strict=True):
        n = max(row.games, 1)
        table.add_row(name, str(row.games), str(row.wins), str(row.draws), str(row.losses),
                      f"{row.placing / n:.2f}", _score(row.score), f"{row.score / n:.2f}", str(row.faults))
    return table


def match_time_outs(result: MatchResult, basis: Basis, ended: Sequence[GameOutcome] | None = None) -> TimeOutCount:
    """The match's games decided by time, per bot: `ended` gives the games in the
    order they ended where that is not the result's (tables played at once)."""
    return count_outcomes(result.outcomes if ended is None else ended, basis, result.names)


def print_time_outs(count: TimeOutCount, always: bool = True) -> None:
    """The count of games decided by time, and the warning when the machine may have
    decided them (on stderr); with `always` False, only when a game was."""
    if always or count.decided:
        console.print(count.line(), highlight=False)
    warning = count.warning("match")
    if warning:
        warn(warning)


def match_document(result: MatchResult, game: Game, options: dict[str, str],
                   time_outs: TimeOutCount | None = None) -> dict[str, object]:
    """The match as one JSON-able document (for --json): every game with its seats,
    ranks, scores, termination and faults, each bot's totals, and the games decided
    by time (`time_outs`; counted on the wall basis, in result order, when not given)."""
    time_outs = time_outs if time_outs is not None else match_time_outs(result, "wall")
    games = []
    for index, (outcome, seats) in enumerate(zip(result.outcomes, result.seatings, strict=True)):
        tags = outcome.record.tags
        games.append({
            "game": index + 1, "round": tags.get("Round"), "seed": tags.get("Seed"),
            "seats": [result.names[b] for b in seats], "ranks": list(outcome.ranks),
            "scores": None if outcome.scores is None else list(outcome.scores), "void": outcome.void,
            "termination": str(outcome.termination), "detail": tags.get("TerminationDetail", ""),
            "plies": len(outcome.record.plies),
            "faults": [{"seat": f.seat, "bot": result.names[seats[f.seat]], "reason": str(f.reason),
                        "detail": f.detail, "ply": f.ply} for f in outcome.faults],
        })
    bots = []
    for name, row in zip(result.names, totals(result), strict=True):
        n = max(row.games, 1)
        bots.append({"bot": name, "games": row.games, "wins": row.wins, "draws": row.draws, "losses": row.losses,
                     "mean_place": round(row.placing / n, 4), game.score_name: row.score,
                     f"mean_{game.score_name}": round(row.score / n, 4), "faults": row.faults,
                     "time_outs": time_outs.bots[name].time_outs if name in time_outs.bots else 0})
    return {"game": game.id, "options": options, "bots": bots, "games": games,
            "never_started": result.never_ready, "time_outs": time_outs.document("match")}
