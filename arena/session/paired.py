"""A two-bot match in pairs of games (the same seed and opening, seats swapped), played
on one or more tables at once, scored as pentanomial pair counts, and stopped as soon
as an SPRT decides, as fastchess and fishtest do. B (bot index 1) is the candidate, A
the baseline. With a records file the match is resumable (arena.session.store): its
games are stored as they end, and a later run plays only the missing ones, the stored
pairs counting toward the SPRT (a test that has decided is not continued)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio

from arena.league.schedule import ScheduledGame
from arena.process.spec import BotSpec
from arena.referee.match import AsyncGameDone, MatchConfig, MatchResult, PlannedGame, opening_of_cycle, unique_names
from arena.referee.openings import Opening
from arena.referee.outcome import GameOutcome
from arena.referee.seeds import Deals, cycle_seed, deal_number, fresh_rotation, random_seed, rotated
from arena.session.request import MatchRequest, PreparedMatch, check_deals, game_options, prepare_variant
from arena.session.runner import log_void_game, play_tables, save_record
from arena.session.setup import SetupError, load_game, openings_from
from arena.session.store import MatchStore, StoredMatchGame
from arena.stats.sprt import PairStats, SprtDecision, SprtParameters


def b_points(outcome: GameOutcome, seats: list[int] | tuple[int, ...]) -> float:
    """Bot B's (bot index 1) points in a 2-seat game: 1, 0.5 or 0."""
    b_seat = list(seats).index(1)
    mine, theirs = outcome.ranks[b_seat], outcome.ranks[1 - b_seat]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def pair_plans(games: int, seed: int, tables: int, book: tuple[Opening, ...] = (),
               deals: Deals = "duplicate") -> list[tuple[PlannedGame, ...]]:
    """The match's games, pair by pair (same seed and opening, seats swapped), dealt to
    `tables` tables: pair k goes to table k mod tables."""
    return [tuple(plan for _, plan in table) for table in deal(list(range(games)), seed, tables, book, deals)]


def pair_seed(seed: int, number: int, deals: Deals = "duplicate") -> int:
    """The chance seed of game `number` of a match: its pair's (duplicate deals: game
    2k and 2k+1 on pair k's), or its own (fresh deals: game n on deal number n)."""
    return cycle_seed(seed, deal_number(deals, number // 2, number))


def deal(numbers: list[int], seed: int, tables: int, book: tuple[Opening, ...] = (),
         deals: Deals = "duplicate") -> list[list[tuple[int, PlannedGame]]]:
    """The games numbered `numbers` (of a match: game 2k and 2k+1 form pair k, on pair
    k's opening, seats swapped, and on pair k's seed, or with fresh deals each on its
    own), dealt to `tables` tables pair by pair, in turn; each with its number."""
    pairs: dict[int, list[int]] = {}
    for number in numbers:
        pairs.setdefault(number // 2, []).append(number)
    dealt: list[list[tuple[int, PlannedGame]]] = [[] for _ in range(tables)]
    for k, (pair, members) in enumerate(sorted(pairs.items())):
        for number in sorted(members):
            planned = PlannedGame(rotated((0, 1), number % 2), pair_seed(seed, number, deals), str(number + 1),
                                  opening_of_cycle(book, pair), (seed, deal_number(deals, pair, number)), number,
                                  fresh_rotation(deals, pair))
            dealt[k % tables].append((number, planned))
    return [table for table in dealt if table]


@dataclass
class PairedMatch:
    """A prepared paired match and its score so far: the pair counts, the SPRT's
    decision once made, and the points of B in each pair still under way."""

    match: PreparedMatch
    plans: list[tuple[PlannedGame, ...]]
    configs: list[MatchConfig]
    sprt: SprtParameters | None = None
    stats: PairStats = field(default_factory=PairStats)
    decision: SprtDecision | None = None
    """H1 (B is stronger by elo1), H0 (not stronger than elo0), or None."""
    played: int = 0
    voided: list[int] = field(default_factory=list)
    open_pairs: dict[int, list[float]] = field(default_factory=dict)
    """Points of B in each pair under way, by pair number; a void game is not part of a pair."""
    numbers: list[list[int]] = field(default_factory=list)
    """The match's number of each table's games (game 2k and 2k+1 form pair k)."""
    store: MatchStore | None = None
    """Where the games are stored as they end (with a records file), else None."""
    earlier: list[StoredMatchGame] = field(default_factory=list)
    """Games stored by earlier runs of this match."""
    asked: int = 0
    """The games the match is to have in all (--games)."""
    notes: list[str] = field(default_factory=list)
    """What a person should hear before the games start (a records file rebuilt...)."""
    _new: list[tuple[int, GameOutcome, list[int]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.numbers:
            self.numbers = [[2 * (k // 2 * len(self.plans) + t) + k % 2 for k in range(len(plan))]
                            for t, plan in enumerate(self.plans)]
        for game in self.earlier:
            self._count(game.index, game.outcome, list(game.seats))

    @property
    def games(self) -> int:
        """The games this run is to play (those not stored yet)."""
        return sum(len(plan) for plan in self.plans)

    @property
    def resumed(self) -> int:
        """Games stored by earlier runs."""
        return len(self.earlier)

    def score(self, table: int, index: int, outcome: GameOutcome, seats: list[int]) -> bool:
        """Count a finished game (the `index`th of table `table`); whether a pair was
        completed by it. A void game completes nothing."""
        self.played += 1
        return self._count(self.numbers[table][index], outcome, seats)

    def _count(self, number: int, outcome: GameOutcome, seats: list[int]) -> bool:
        if outcome.void:
            self.voided.append(number)
            return False
        points = self.open_pairs.setdefault(number // 2, [])
        points.append(b_points(outcome, seats))
        if len(points) < 2:
            return False
        self.stats.add_pair(sum(points), (points[0], points[1]))
        del self.open_pairs[number // 2]
        if self.sprt is not None and self.decision is None:
            self.decision = self.stats.decision(self.sprt)
        return True

    async def play(self, on_game: Callable[[GameOutcome], None] | None = None,
                   on_pair: Callable[[PairStats], None] | None = None) -> MatchResult:
        """Play every table until the games run out or the SPRT decides; each game is
        kept (stored, record appended, or its void logged) as it ends, then `on_game`
        sees it, and `on_pair` sees the counts after each completed pair. The result
        holds the games of earlier runs too, in match order."""
        logs, out, store = self.match.logs, self.match.out, self.store
        storing = trio.Lock()  # one game stored at a time, in the order they ended

        def table_done(table: int) -> AsyncGameDone:
            async def done(index: int, outcome: GameOutcome, seats: list[int]) -> bool:
                number = self.numbers[table][index]
                async with storing:
                    if outcome.void:
                        log_void_game(logs, self.played, outcome)
                    elif store is not None:
                        planned = self.plans[table][index]
                        scheduled = ScheduledGame(number, 0, planned.seats, planned.seed, planned.round,
                                                  number // 2, number)
                        await trio.to_thread.run_sync(store.save, scheduled, outcome)
                    elif out is not None:
                        await trio.to_thread.run_sync(save_record, out, outcome, logs)
                if on_game is not None:
                    on_game(outcome)
                self._new.append((number, outcome, seats))
                if self.score(table, index, outcome, seats) and on_pair is not None:
                    on_pair(self.stats)
                return self.decision is not None

            return done

        if self.configs:
            played = await play_tables(self.configs, self.match.specs, table_done)
        else:  # nothing left to play: the stored games are the whole match
            played = MatchResult([spec.name for spec in unique_names(self.match.specs)])
        return self._whole(played)

    def _whole(self, played: MatchResult) -> MatchResult:
        """This run's result with the earlier runs' games, in match order."""
        if not self.earlier:
            return played
        games = [(g.index, g.outcome, list(g.seats)) for g in self.earlier] + self._new
        games.sort(key=lambda game: game[0])
        return replace(played, outcomes=[o for _, o, _ in games], seatings=[s for _, _, s in games])

    def close(self) -> None:
        """Close the match's store (after the games, however they ended)."""
        if self.store is not None:
            self.store.close()


def match_identity(request: MatchRequest, game_id: str, options: dict[str, str], sprt: SprtParameters | None,
                   book: tuple[Opening, ...]) -> dict[str, Any]:
    """What fixes a match's games: a stored match resumes only under the same."""
    return {
        "game": game_id, "options": options,
        "bots": [bot.name if isinstance(bot, BotSpec) else bot for bot in request.bots],
        "sprt": None if sprt is None else sprt.describe(),
        "openings": [opening.name for opening in book], "random_opening": request.random_opening,
        "seed": request.seed, "bot_seed": request.bot_seed,
        # Only when fresh, so that a match stored before deals could be fresh resumes.
        **({"deals": request.deals} if request.deals != "duplicate" else {}),
        # Only when not the default, so that a match stored before the openings had an order resumes.
        **({"openings_order": request.openings_order} if request.openings_order != "sequential" else {}),
        **({"openings_start": request.openings_start} if request.openings_start != 1 else {}),
    }


def prepare_pairs(request: MatchRequest, concurrency: int = 1, sprt: SprtParameters | None = None,
                  notes: Callable[[str], None] | None = None) -> PairedMatch:
    """Check a paired match (a 2-seat game, an even number of games) and deal its pairs
    to `concurrency` tables, each with its own log folder. With a records file (`out`),
    the match is resumable: a store of an earlier run of the same match gives its
    seeds and games (MatchStoreError for another match's), and only the rest is
    dealt. The caller closes the result (PairedMatch.close)."""
    game = load_game(request.game)
    if not game.min_seats <= 2 <= game.max_seats:
        raise SetupError(f"{game.id} is not played by 2 seats; a match pits two bots against each other")
    options = game_options(game, request.options)
    check_deals(request.deals)
    if request.games % 2:
        raise SetupError(f"--games {request.games}: a match is played in pairs (same seed, seats swapped); "
                         f"give an even number such as {request.games + 1}")
    store: MatchStore | None = None
    book = openings_from(request.openings, request.random_opening, game, 2, options)
    if request.out is not None:
        store = MatchStore.find(request.out, match_identity(request, game.id, options, sprt, book))
        seed, bot_seed = store.seeds() if store is not None else (random_seed(), random_seed())
        request = replace(request, seed=seed if request.seed is None else request.seed,
                          bot_seed=bot_seed if request.bot_seed is None else request.bot_seed)
    try:
        match = prepare_variant(request, game, options, notes, book)
        if request.out is not None and store is None:
            identity = match_identity(request, game.id, options, sprt, book)
            store = MatchStore.create(request.out, identity, [str(name) for name in identity["bots"]])
        return _deal(match, request, concurrency, sprt, store)
    except BaseException:
        if store is not None:
            store.close()
        raise


def _deal(match: PreparedMatch, request: MatchRequest, concurrency: int, sprt: SprtParameters | None,
          store: MatchStore | None) -> PairedMatch:
    config = match.config
    earlier: list[StoredMatchGame] = []
    numbers = list(range(request.games))
    notes = []
    if store is not None:
        store.schedule(request.games, config.seed, config.deals)
        earlier = store.stored_games()
        done = {game.index for game in earlier}
        numbers = [n for n in numbers if n not in done]
        kept = store.sync_records()
        notes += [kept] if kept else []
    tables = deal(numbers, config.seed, concurrency, config.openings, config.deals)
    hidden: tuple[Path, ...] = (match.out, match.logs) if match.out else (match.logs,)
    if store is not None:
        hidden += (store.path,)
    configs = [replace(config, games=len(table), plan=tuple(p for _, p in table), log_dir=match.logs / f"table-{k + 1}",
                       hidden=hidden, openings=()) for k, table in enumerate(tables)]
    paired = PairedMatch(match, [c.plan or () for c in configs], configs, sprt,
                         numbers=[[n for n, _ in table] for table in tables], store=store, earlier=earlier,
                         asked=request.games, notes=notes)
    if paired.decision is not None:  # the stored pairs have decided: the test is not continued
        paired.plans, paired.configs, paired.numbers = [], [], []
    return paired


@dataclass(frozen=True)
class PairedResult:
    """A paired match's games, its pair counts and the SPRT's decision (None when it
    did not decide, or no SPRT was asked for). Elo, LOS and LLR are the candidate's
    (B, bot index 1) over the baseline (A)."""

    result: MatchResult
    stats: PairStats
    sprt: SprtParameters | None
    decision: SprtDecision | None

    def elo(self) -> tuple[float, float, float]:
        """B's Elo over A with the ends of its 95% interval."""
        return self.stats.elo()

    def llr(self) -> float | None:
        """The log-likelihood ratio of the SPRT (None without one)."""
        return None if self.sprt is None else self.stats.llr(self.sprt)
