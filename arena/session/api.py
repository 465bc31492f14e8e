"""The arena as a library: play a match between bots (`play`), or a two-bot match in
pairs with an SPRT (`match`), each with an async twin for code that runs its own Trio
loop. They check what they are given as `arena play` and `arena match` do (SetupError,
before any bot starts), play through the same referee and sandbox, and return typed
results: MatchResult holds every game's GameOutcome (record, ranks, scores, faults).
docs/library.md shows them at work."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from os import PathLike
from pathlib import Path

from arena.process.spec import BotSpec, Limits
from arena.referee.match import MatchResult
from arena.referee.outcome import GameOutcome
from arena.referee.seeds import Deals
from arena.session.paired import PairedResult, prepare_pairs
from arena.session.request import MatchRequest, PreparedMatch, prepare_match
from arena.session.runner import play_prepared, run_sync
from arena.session.setup import SetupError
from arena.stats.sprt import SprtParameters
from arena.timecontrol import TimeControl

Time = float | str | TimeControl | Sequence[float | str | TimeControl]
"""A time control: seconds per decision (0.5 or "500ms"), a TimeControl (per move,
game clock, increment), or one of these per bot in the order the bots are named."""

BotName = str | BotSpec
"""A bot: a shipped bot's short name ("random", "greedy"), a command line
("python3 mybot.py"), or a BotSpec."""

OnGame = Callable[[GameOutcome], None]
"""Called with each game's outcome as it ends (after its record is written)."""


def play(game: str, bots: Sequence[BotName], *, games: int = 1, seed: int | None = None, time: Time = 5.0,
         out: str | PathLike[str] | None = None, options: Mapping[str, str] | None = None,
         bot_seed: int | None = None, limits: Limits | None = None, sandbox: bool = True,
         log_dir: str | PathLike[str] | None = None, on_game: OnGame | None = None,
         event: str = "arena play", deals: Deals = "duplicate") -> MatchResult:
    """Play `games` games of `game` between `bots` (one per seat, seats rotating each
    game) and return the results; each game's record is appended to `out` as it ends.
    `seed` fixes chance (dice, deals) and `bot_seed` the bots' ARENA_BOT_SEED, both
    drawn at random when None; `deals="fresh"` gives every game a seed of its own
    (by default the games of a seat rotation share one). Bots run in their sandbox
    unless `sandbox` is False. A bot's fault is a result (its outcome's `faults`), not
    an exception. `event` is every record's Event tag."""
    request = _request(game, bots, games, seed, time, out, options, bot_seed, limits, sandbox, log_dir, event,
                       deals)
    return run_sync(lambda: _play(request, on_game))


async def play_async(game: str, bots: Sequence[BotName], *, games: int = 1, seed: int | None = None,
                     time: Time = 5.0, out: str | PathLike[str] | None = None,
                     options: Mapping[str, str] | None = None, bot_seed: int | None = None,
                     limits: Limits | None = None, sandbox: bool = True,
                     log_dir: str | PathLike[str] | None = None, on_game: OnGame | None = None,
                     event: str = "arena play", deals: Deals = "duplicate") -> MatchResult:
    """`play` for code that runs in a Trio loop: the same arguments and result."""
    request = _request(game, bots, games, seed, time, out, options, bot_seed, limits, sandbox, log_dir, event,
                       deals)
    return await _play(request, on_game)


def match(game: str, baseline: BotName, candidate: BotName, *, games: int = 1000,
          sprt: SprtParameters | None = None, seed: int | None = None, time: Time = 5.0,
          out: str | PathLike[str] | None = None, options: Mapping[str, str] | None = None,
          bot_seed: int | None = None, limits: Limits | None = None, sandbox: bool = True,
          concurrency: int = 1, on_game: OnGame | None = None, event: str = "arena match",
          deals: Deals = "duplicate") -> PairedResult:
    """Play `candidate` against `baseline` in pairs of games (the same seed, seats
    swapped; `deals="fresh"`: a seed for every game), `concurrency` games at once, up
    to `games` games (an even number) or until `sprt` decides; the result holds the
    candidate's Elo over the baseline, the pentanomial counts and the SPRT's decision
    ('H1': stronger by elo1, 'H0': not stronger than elo0). With `out` the match is
    resumable: its games are stored in `out` + ".sqlite" as they end, and the same
    call plays only those not stored."""
    request = _request(game, [baseline, candidate], games, seed, time, out, options, bot_seed, limits, sandbox,
                       None, event=event, deals=deals)
    return run_sync(lambda: _match(request, concurrency, sprt, on_game))


async def match_async(game: str, baseline: BotName, candidate: BotName, *, games: int = 1000,
                      sprt: SprtParameters | None = None, seed: int | None = None, time: Time = 5.0,
                      out: str | PathLike[str] | None = None, options: Mapping[str, str] | None = None,
                      bot_seed: int | None = None, limits: Limits | None = None, sandbox: bool = True,
                      concurrency: int = 1, on_game: OnGame | None = None,
                      event: str = "arena match", deals: Deals = "duplicate") -> PairedResult:
    """`match` for code that runs in a Trio loop: the same arguments and result."""
    request = _request(game, [baseline, candidate], games, seed, time, out, options, bot_seed, limits, sandbox,
                       None, event=event, deals=deals)
    return await _match(request, concurrency, sprt, on_game)


def _request(game: str, bots: Sequence[BotName], games: int, seed: int | None, time: Time,
             out: str | PathLike[str] | None, options: Mapping[str, str] | None, bot_seed: int | None,
             limits: Limits | None, sandbox: bool, log_dir: str | PathLike[str] | None,
             event: str = "arena play", deals: Deals = "duplicate") -> MatchRequest:
    if games < 1:
        raise SetupError(f"games={games}: play at least one game")
    base = limits or Limits()
    if base.sandbox != sandbox:
        base = replace(base, sandbox=sandbox)
    return MatchRequest(game, list(bots), games, seed, bot_seed, dict(options or {}),
                        time_controls=time_controls(time), limits=base, find_registry=False,
                        out=None if out is None else Path(out), log_dir=None if log_dir is None else Path(log_dir),
                        event=event, deals=deals)


def time_controls(time: Time) -> tuple[TimeControl, ...]:
    """The time controls a `time` argument gives (one, or one per bot)."""
    if isinstance(time, float | int | str | TimeControl):
        return (_control(time),)
    return tuple(_control(t) for t in time)


def _control(time: float | str | TimeControl) -> TimeControl:
    if isinstance(time, TimeControl):
        return time
    if isinstance(time, str):
        return TimeControl.parse(time, None)
    return TimeControl.parse(repr(float(time)), None)


def _tidy(match: PreparedMatch) -> None:
    """A temporary log folder goes once the match is over (give log_dir to keep the
    bots' stderr)."""
    if match.own_logs:
        shutil.rmtree(match.logs, ignore_errors=True)


async def _play(request: MatchRequest, on_game: OnGame | None) -> MatchResult:
    prepared = prepare_match(request, _warn)
    try:
        return await play_prepared(prepared, _each_game(on_game))
    finally:
        _tidy(prepared)


async def _match(request: MatchRequest, concurrency: int, sprt: SprtParameters | None,
                 on_game: OnGame | None) -> PairedResult:
    paired = prepare_pairs(request, concurrency, sprt, _warn)
    try:
        for note in paired.notes:
            _warn(note)
        result = await paired.play(on_game)
    finally:
        paired.close()
        _tidy(paired.match)
    return PairedResult(result, paired.stats, sprt, paired.decision)


def _each_game(on_game: OnGame | None) -> Callable[[int, GameOutcome, list[int]], None] | None:
    if on_game is None:
        return None

    def done(index: int, outcome: GameOutcome, seats: list[int]) -> None:
        on_game(outcome)

    return done


def _warn(note: str) -> None:
    import warnings

    warnings.warn(note, RuntimeWarning, stacklevel=4)
