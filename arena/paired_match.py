"""A two-bot match in pairs of games (the same seed and opening, seats swapped), played
on one or more tables at once, scored as pentanomial pair counts, and stopped as soon
as an SPRT decides, as fastchess and fishtest do. B (bot index 1) is the candidate, A
the baseline."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from arena.match_request import MatchRequest, PreparedMatch, game_options, prepare_match
from arena.match_runner import log_void_game, play_tables, save_record
from arena.match_setup import SetupError, load_game
from arena.referee.match import GameDone, MatchConfig, MatchResult, PlannedGame, opening_of_cycle
from arena.referee.openings import Opening
from arena.referee.outcome import GameOutcome
from arena.referee.seeds import cycle_seed, rotated
from arena.stats.sprt import PairStats, SprtParameters


def b_points(outcome: GameOutcome, seats: list[int]) -> float:
    """Bot B's (bot index 1) points in a 2-seat game: 1, 0.5 or 0."""
    b_seat = seats.index(1)
    mine, theirs = outcome.ranks[b_seat], outcome.ranks[1 - b_seat]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def pair_plans(games: int, seed: int, tables: int, book: tuple[Opening, ...] = ()) -> list[tuple[PlannedGame, ...]]:
    """The match's games, pair by pair (same seed and opening, seats swapped), dealt to
    `tables` tables: pair k goes to table k mod tables."""
    plans: list[list[PlannedGame]] = [[] for _ in range(tables)]
    for pair in range(games // 2):
        for second in (0, 1):
            index = 2 * pair + second
            plans[pair % tables].append(PlannedGame(rotated((0, 1), second), cycle_seed(seed, pair), str(index + 1),
                                                    opening_of_cycle(book, pair)))
    return [tuple(plan) for plan in plans if plan]


@dataclass
class PairedMatch:
    """A prepared paired match and its score so far: the pair counts, the SPRT's
    decision once made, and the points of B in each pair still under way."""

    match: PreparedMatch
    plans: list[tuple[PlannedGame, ...]]
    configs: list[MatchConfig]
    sprt: SprtParameters | None = None
    stats: PairStats = field(default_factory=PairStats)
    decision: str | None = None
    """'H1' (B is stronger by elo1), 'H0' (not stronger than elo0), or None."""
    played: int = 0
    voided: list[int] = field(default_factory=list)
    open_pairs: dict[int, list[float]] = field(default_factory=dict)
    """Points of B in each pair under way, by its seed; a void game is not part of a pair."""

    @property
    def games(self) -> int:
        return sum(len(plan) for plan in self.plans)

    def score(self, table: int, index: int, outcome: GameOutcome, seats: list[int]) -> bool:
        """Count a finished game (the `index`th of table `table`); whether a pair was
        completed by it. A void game completes nothing."""
        self.played += 1
        if outcome.void:
            self.voided.append(index)
            return False
        seed = self.plans[table][index].seed
        points = self.open_pairs.setdefault(seed, [])
        points.append(b_points(outcome, seats))
        if len(points) < 2:
            return False
        self.stats.add_pair(sum(points))
        del self.open_pairs[seed]
        if self.sprt is not None and self.decision is None:
            self.decision = self.stats.decision(self.sprt)
        return True

    async def play(self, on_game: Callable[[GameOutcome], None] | None = None,
                   on_pair: Callable[[PairStats], None] | None = None) -> MatchResult:
        """Play every table until the games run out or the SPRT decides; each game is
        kept (record file, void log) as it ends, then `on_game` sees it, and `on_pair`
        sees the counts after each completed pair."""
        logs, out = self.match.logs, self.match.out

        def table_done(table: int) -> GameDone:
            def done(index: int, outcome: GameOutcome, seats: list[int]) -> bool:
                if on_game is not None:
                    on_game(outcome)
                if outcome.void:
                    log_void_game(logs, self.played, outcome)
                elif out is not None:
                    save_record(out, outcome, logs)
                if self.score(table, index, outcome, seats) and on_pair is not None:
                    on_pair(self.stats)
                return self.decision is not None

            return done

        return await play_tables(self.configs, self.match.specs, table_done)


def prepare_pairs(request: MatchRequest, concurrency: int = 1, sprt: SprtParameters | None = None,
                  notes: Callable[[str], None] | None = None) -> PairedMatch:
    """Check a paired match (a 2-seat game, an even number of games) and deal its pairs
    to `concurrency` tables, each with its own log folder."""
    game = load_game(request.game)
    if not game.min_seats <= 2 <= game.max_seats:
        raise SetupError(f"{game.id} is not played by 2 seats; a match pits two bots against each other")
    game_options(game, request.options)
    if request.games % 2:
        raise SetupError(f"--games {request.games}: a match is played in pairs (same seed, seats swapped); "
                         f"give an even number such as {request.games + 1}")
    match = prepare_match(request, notes)
    config = match.config
    plans = pair_plans(request.games, config.seed, concurrency, config.openings)
    hidden = (match.out, match.logs) if match.out else (match.logs,)
    configs = [replace(config, games=len(plan), plan=plan, log_dir=match.logs / f"table-{k + 1}", hidden=hidden,
                       openings=())
               for k, plan in enumerate(plans)]
    return PairedMatch(match, plans, configs, sprt)


@dataclass(frozen=True)
class PairedResult:
    """A paired match's games, its pair counts and the SPRT's decision (None when it
    did not decide, or no SPRT was asked for). Elo, LOS and LLR are the candidate's
    (B, bot index 1) over the baseline (A)."""

    result: MatchResult
    stats: PairStats
    sprt: SprtParameters | None
    decision: str | None

    def elo(self) -> tuple[float, float, float]:
        """B's Elo over A with the ends of its 95% interval."""
        return self.stats.elo()

    def llr(self) -> float | None:
        """The log-likelihood ratio of the SPRT (None without one)."""
        return None if self.sprt is None else self.stats.llr(self.sprt)
