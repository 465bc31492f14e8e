"""What a finished game gives the match and the league: its record, ranks, scores and
faults. The ranking rule after faults and the record's tags live here, apart from the
game loop that produces them."""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from datetime import date

from arena.games.base import Game, competition_ranks
from arena.process.faults import SeatFault
from arena.records.record import GameRecord, Ply, format_places, format_ranks, format_scores, pgn_result, pgn_sides
from arena.referee.seeds import cycle_seed
from arena.termination import Termination
from arena.timecontrol import TimeControl


def describe_controls(controls: list[TimeControl]) -> str:
    """The TimeControl tag: one control when every seat has it, else each seat's in
    seat order, separated by ` / ` (e.g. `move=1s / move=0.2s`)."""
    texts = [c.describe() for c in controls]
    return texts[0] if len(set(texts)) <= 1 else " / ".join(texts)


@dataclass(frozen=True)
class GameSetup:
    """Everything that fixes a game before it starts."""

    game: Game
    options: dict[str, str]
    time_controls: tuple[TimeControl, ...]
    """Each seat's time control, in seat order (its bot's BotSpec.time_control)."""
    seed: int
    """The game's chance seed (with `chance_key`, it seeds the chance generator)."""
    origin: tuple[int, int] | None = None
    """The seed as given and the rotation cycle `seed` was made from (the record's Seed
    and Cycle tags, so that a record says how to play its game again); None: `seed`
    was given as it is."""
    rotation: int | None = None
    """With fresh deals, the seat rotation the game belongs to (`origin` then holds the
    game's own deal number, not its rotation): its random opening is drawn from the
    rotation's seed, and the record's Rotation tag holds it. None: the deal's number is
    the rotation (duplicate deals), or `seed` was given as it is."""
    event: str = "arena"
    round: str = "1"
    match_game: int = 0
    chance_key: bytes = b""
    """The secret hashed with the seed into the chance generator's seed (seeds.chance_seed)."""
    bot_seeds: tuple[int | None, ...] = ()
    """Each seat's bot seed (BotSpec.bot_seed, None where it has none), recorded in the
    BotSeeds tag so seeded bots replay exactly."""
    opening: tuple[str, ...] = ()
    """The plies the game starts with, played by the referee (an opening file's line)."""
    random_opening: int = 0
    """Plies drawn at random from the legal actions at the start (--random-opening)."""
    opening_name: str = ""
    """What the record's Opening tag says of the opening."""

    @property
    def opening_seed(self) -> int:
        """The seed of a random opening: the seat rotation's (so each is played from
        every seat), which is the game's own seed unless deals are fresh."""
        if self.rotation is not None and self.origin is not None:
            return cycle_seed(self.origin[0], self.rotation)
        return self.seed


@dataclass
class GameOutcome:
    """What the match and the league need from a finished game."""

    record: GameRecord
    ranks: tuple[int, ...]
    scores: tuple[float, ...] | None
    faults: list[SeatFault]
    termination: Termination
    decisions: int
    error: str | None = None
    """The traceback of an infrastructure error (the game is then void)."""

    @property
    def void(self) -> bool:
        """Whether the game was stopped by the arena's own error and must not be scored."""
        return self.termination == Termination.INFRASTRUCTURE_ERROR


def ranks_after_faults(base: list[int], faults: list[SeatFault]) -> tuple[int, ...]:
    """The game's ranks (`base`) overridden by faults: faulted seats last, the first to
    fault lowest; the others keep the game's order among themselves."""
    n = len(base)
    if not faults:
        return tuple(base)
    if n == 1:
        return (2,)  # a solo seat that faulted has not won
    removed = {f.seat for f in faults}
    ranks = [0] * n
    survivors = [s for s in range(n) if s not in removed]
    for seat, rank in zip(survivors, competition_ranks([-base[s] for s in survivors]), strict=True):
        ranks[seat] = rank
    next_rank = len(survivors) + 1
    for fault in reversed(faults):
        ranks[fault.seat] = next_rank
        next_rank += 1
    return tuple(ranks)


def fault_detail(faults: list[SeatFault], names: list[str]) -> str:
    """The record's TerminationDetail: every fault with its seat, bot, reason and ply."""
    return "; ".join(f"seat {f.seat} ({names[f.seat]}) {f.reason} {f.when}: {f.detail}" for f in faults)


def game_tags(setup: GameSetup, names: list[str], ranks: tuple[int, ...], scores: tuple[float, ...] | None,
              termination: Termination, detail: str, plies: int) -> dict[str, str]:
    """The record's tag pairs, in the standard order. PGN's Seven Tag Roster is always
    there, so generic PGN tools list the games: Site is "?", unknown, as PGN writes it;
    White names seat 0 and Black the others (`pgn_sides`); Result is 1-0, 0-1 or
    1/2-1/2 with two seats, else `*`, and then (3+ seats, not void) Places says who
    came where (docs/records.md, "The Seven Tag Roster for N seats")."""
    void = termination == Termination.INFRASTRUCTURE_ERROR
    white, black = pgn_sides(names)
    tags = {
        "Event": setup.event,
        "Site": "?",
        "Date": date.today().strftime("%Y.%m.%d"),
        "Round": setup.round,
        "White": white,
        "Black": black,
        "Result": pgn_result(None if void else ranks),
        "Game": setup.game.id,
        "Options": ",".join(f"{k}={v}" for k, v in setup.options.items()),
        "Seats": str(len(names)),
    }
    for seat, name in enumerate(names):
        tags[f"Player{seat}"] = name
    if setup.origin is not None and cycle_seed(*setup.origin) == setup.seed:
        tags["Seed"], tags["Cycle"] = str(setup.origin[0]), str(setup.origin[1])
        if setup.rotation is not None:
            tags["Rotation"] = str(setup.rotation)
    else:
        tags["Seed"] = str(setup.seed)
    if any(seed is not None for seed in setup.bot_seeds):
        tags["BotSeeds"] = ",".join("" if seed is None else str(seed) for seed in setup.bot_seeds)
    tags["TimeControl"] = describe_controls(list(setup.time_controls))
    if setup.opening or setup.random_opening:
        tags["Opening"] = setup.opening_name or (f"random {setup.random_opening}" if setup.random_opening else
                                                 " ".join(setup.opening))
    tags["Ranks"] = format_ranks(ranks)
    if len(names) > 2 and not void:
        tags["Places"] = format_places(names, ranks)
    if scores is not None:
        tags["Scores"] = format_scores(scores)
    tags["Termination"] = str(termination)
    if detail:
        tags["TerminationDetail"] = detail
    tags["Plies"] = str(plies)
    return tags


def void_outcome(setup: GameSetup, names: list[str], plies: list[Ply], error: BaseException) -> GameOutcome:
    """A game that the arena's own error stopped: void, every seat level, not scored."""
    cause = error
    while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
        cause = cause.exceptions[0]  # a nursery's wrapping says nothing of what failed
    detail = f"the arena failed ({type(cause).__name__}: {str(cause)[:200]}); the game is void and is played again"
    ranks = tuple(1 for _ in names)
    reason = Termination.INFRASTRUCTURE_ERROR
    tags = game_tags(setup, names, ranks, None, reason, detail, len(plies))
    trace = "".join(traceback.format_exception(error))
    return GameOutcome(GameRecord(tags=tags, plies=list(plies)), ranks, None, [], reason, 0, trace)
