"""The arena as a library: play a match between bots (`play`), or a two-bot match in
pairs with an SPRT (`match`), each with an async twin for code that runs its own Trio
loop. They check what they are given as `arena play` and `arena match` do (SetupError,
before any bot starts, also for the mistakes lower layers name in errors of their own:
`as_setup_error`), play through the same referee and sandbox, and return typed
results: MatchResult holds every game's GameOutcome (record, ranks, scores, faults).
docs/library.md shows them at work.

Each pair is written once, as its async form; the synchronous one is made from it
(`synchronous`), so both take the same parameters. Both forms of both turn their
arguments into one MatchRequest (`_request`), as the command line does."""

from __future__ import annotations

import functools
import shutil
import warnings
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import replace
from os import PathLike
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from arena.process.spec import BotSpec, Limits
from arena.referee.match import MatchResult
from arena.referee.outcome import GameOutcome
from arena.referee.scheduling import allowed_cores
from arena.referee.seeds import Deals
from arena.session.inprocess import PythonBot, seat_python_bots
from arena.session.paired import PairedResult, prepare_pairs
from arena.session.request import MatchRequest, PreparedMatch, prepare_match
from arena.session.runner import play_prepared, run_sync
from arena.session.setup import SetupError, as_setup_error
from arena.stats.sprt import SprtParameters
from arena.timecontrol import Time, TimeControl, time_control

P = ParamSpec("P")
T = TypeVar("T")

BotName = str | BotSpec | PythonBot | type[PythonBot]
"""A bot: a shipped bot's short name ("random", "greedy"), a command line
("python3 mybot.py"), a BotSpec, or a Python object with `act(state, legal, clock)`
(arena.PythonBot, played in this process; a class: a fresh object of it each time its
seat's bot starts)."""

OnGame = Callable[[GameOutcome], None]
"""Called with each game's outcome as it ends (after its record is written)."""

FilePath = str | PathLike[str]


def synchronous(work: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, T]:
    """`work` for synchronous code: the same parameters, run in a Trio loop of its own
    (an ArenaError comes out as itself); named as `work` without `_async`."""

    @functools.wraps(work)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_sync(lambda: work(*args, **kwargs))

    run.__name__ = run.__qualname__ = work.__name__.removesuffix("_async")
    return run


async def play_async(game: str, bots: Sequence[BotName], *, games: int = 1, seed: int | None = None,
                     time: Time | Sequence[Time] = 5.0, out: FilePath | None = None,
                     options: Mapping[str, str] | None = None, bot_seed: int | None = None,
                     limits: Limits | None = None, sandbox: bool = True, log_dir: FilePath | None = None,
                     on_game: OnGame | None = None, event: str = "arena play",
                     deals: Deals = "duplicate", openings: FilePath | None = None,
                     random_opening: int = 0, concurrency: int = 1, openings_order: str = "sequential",
                     openings_start: int = 1) -> MatchResult:
    """Play `games` games of `game` between `bots` (one per seat, seats rotating each
    game) and return the results; each game's record is appended to `out` as it ends.
    `play` is the same for synchronous code. `seed` fixes chance (dice, deals) and
    `bot_seed` the bots' ARENA_BOT_SEED, both drawn at random when None;
    `deals="fresh"` gives every game a seed of its own (by default the games of a seat
    rotation share one). `time` is one time control, or one per bot. Bots run in their
    sandbox unless `sandbox` is False. A bot's fault is a result (its outcome's
    `faults`), not an exception. `event` is every record's Event tag. `openings` (an
    openings file, or "shipped": docs/openings.md) starts each seat rotation from the
    next opening (`openings_order="random"` shuffles them with the seed,
    `openings_start` is the 1-based first, as fastchess's order= and start=);
    `random_opening` plays that many random plies first instead.
    `concurrency` plays that many seat rotations at once, each on a table of its own
    bots (the result keeps the games in match order). A Python bot (an object with
    `act`) plays in this process, without a sandbox."""
    with as_setup_error():
        request = _request(game, bots, games=games, seed=seed, time=time, out=out, options=options,
                           bot_seed=bot_seed, limits=limits, sandbox=sandbox, log_dir=log_dir, event=event, deals=deals,
                           openings=openings, random_opening=random_opening,
                           openings_order=openings_order, openings_start=openings_start)
        _check_concurrency(concurrency)
        prepared = prepare_match(request, _warn)
        try:
            _note_concurrency(concurrency, prepared)
            return await play_prepared(prepared, _each_game(on_game), concurrency=concurrency)
        finally:
            _tidy(prepared)


async def match_async(game: str, baseline: BotName, candidate: BotName, *, games: int = 1000,
                      sprt: SprtParameters | None = None, seed: int | None = None,
                      time: Time | Sequence[Time] = 5.0, out: FilePath | None = None,
                      options: Mapping[str, str] | None = None, bot_seed: int | None = None,
                      limits: Limits | None = None, sandbox: bool = True, concurrency: int = 1,
                      on_game: OnGame | None = None, event: str = "arena match",
                      deals: Deals = "duplicate", openings: FilePath | None = None,
                      random_opening: int = 0, openings_order: str = "sequential",
                      openings_start: int = 1) -> PairedResult:
    """Play `candidate` against `baseline` in pairs of games (the same seed, seats
    swapped; `deals="fresh"`: a seed for every game), `concurrency` games at once, up
    to `games` games (an even number) or until `sprt` decides; the result holds the
    candidate's Elo over the baseline, the pentanomial counts and the SPRT's decision
    (SprtDecision.H1: stronger by elo1, H0: not stronger than elo0). `match` is the
    same for synchronous code. With `out` the match is resumable: its games are stored
    in `out` + ".sqlite" as they end, and the same call plays only those not stored.
    `openings` and `random_opening` as for `play`: each pair starts from the next
    opening. A bot may be a Python object with `act`, as for `play`."""
    with as_setup_error():
        request = _request(game, [baseline, candidate], games=games, seed=seed, time=time, out=out, options=options,
                           bot_seed=bot_seed, limits=limits, sandbox=sandbox, log_dir=None, event=event, deals=deals,
                           openings=openings, random_opening=random_opening,
                           openings_order=openings_order, openings_start=openings_start)
        _check_concurrency(concurrency)
        paired = prepare_pairs(request, concurrency, sprt, _warn)
        try:
            _note_concurrency(concurrency, paired.match)
            for note in paired.notes:
                _warn(note)
            result = await paired.play(on_game)
        finally:
            paired.close()
            _tidy(paired.match)
    return PairedResult(result, paired.stats, sprt, paired.decision)


play = synchronous(play_async)
match = synchronous(match_async)


def _request(game: str, bots: Sequence[BotName], *, games: int, seed: int | None, time: Time | Sequence[Time],
             out: FilePath | None, options: Mapping[str, str] | None, bot_seed: int | None, limits: Limits | None,
             sandbox: bool, log_dir: FilePath | None, event: str, deals: Deals, openings: FilePath | None = None,
             random_opening: int = 0, openings_order: str = "sequential", openings_start: int = 1) -> MatchRequest:
    """The MatchRequest the library's arguments make (checked later, as the CLI's are)."""
    if games < 1:
        raise SetupError(f"games={games}: play at least one game")
    named, python_bots = seat_python_bots(bots)
    base = limits or Limits()
    if base.sandbox != sandbox:
        base = replace(base, sandbox=sandbox)
    return MatchRequest(game, named, games, seed, bot_seed, dict(options or {}),
                        time_controls=time_controls(time), limits=base, find_registry=False,
                        out=None if out is None else Path(out), log_dir=None if log_dir is None else Path(log_dir),
                        event=event, deals=deals, openings=None if openings is None else Path(openings),
                        random_opening=random_opening, python_bots=python_bots, openings_order=openings_order,
                        openings_start=openings_start)


def _check_concurrency(concurrency: int) -> None:
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise SetupError(f"concurrency={concurrency!r}: give the number of games to play at once, 1 or more")


def _note_concurrency(concurrency: int, match: PreparedMatch) -> None:
    """Warn (as `arena match` refuses unless forced) when more games run at once than
    this machine has cores, on the wall basis."""
    cores = len(allowed_cores())
    if concurrency > cores and match.basis == "wall":
        _warn(f"concurrency={concurrency} is more than this machine's {cores} cores on the wall basis: bots waiting "
              "for a core lose time they did not use; lower it, or time the bots on the CPU basis")


def time_controls(time: Time | Sequence[Time]) -> tuple[TimeControl, ...]:
    """The time controls a `time` argument gives (one, or one per bot)."""
    if isinstance(time, float | int | str | TimeControl):
        return (time_control(time),)
    return tuple(time_control(t) for t in time)


def _tidy(match: PreparedMatch) -> None:
    """A temporary log folder goes once the match is over (give log_dir to keep the
    bots' stderr)."""
    if match.own_logs:
        shutil.rmtree(match.logs, ignore_errors=True)


def _each_game(on_game: OnGame | None) -> Callable[[int, GameOutcome, list[int]], None] | None:
    if on_game is None:
        return None

    def done(index: int, outcome: GameOutcome, seats: list[int]) -> None:
        on_game(outcome)

    return done


def _warn(note: str) -> None:
    warnings.warn(note, RuntimeWarning, stacklevel=4)
