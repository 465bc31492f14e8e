"""`arena rerun FILE --game N`: a record's game played again with the same chance (the
record's seed and deal number, each seat's ARENA_BOT_SEED, the same opening and time
control), by the record's bots or the bots named; said plainly when the chance key here
is not the one the record was played with, and where the new game departs from the
record."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import arena_errors, console, fail, warn
from arena.cli.options import BotSetup, OutArg, bare_seconds_checked, takes
from arena.cli.records import nth_record
from arena.cli.summary import outcome_line
from arena.errors import ArenaError
from arena.league.config import LeagueFileError, load_league
from arena.process.secret import SECRET_ENV, secret_path
from arena.process.spec import BotSpec
from arena.referee.match import MatchResult, play_match
from arena.session.rerun import ChanceKey, Rerun, league_secret, prepare_rerun
from arena.session.runner import keeping, run_sync
from arena.session.setup import prepare_log_dir, prepare_out_file
from arena.timecontrol import TimeControl


@dataclass(frozen=True)
class RerunOptions:
    """Everything `arena rerun` takes, in the order its help lists it."""

    path: Annotated[Path, typer.Argument(metavar="FILE", help="A record file (arena play --out, a league's "
                                                              "league.pgn).")]
    bots: Annotated[list[str] | None, typer.Argument(
        metavar="[BOT...]", help="The bots, one per seat in seat order (default: the record's players, as shipped "
        "bots or names in bots.toml).")] = None
    game_number: Annotated[int, typer.Option("--game", "-g", min=1, help="Which game of the file (from 1).")] = 1
    out: OutArg = None
    time_per_move: Annotated[str | None, typer.Option(
        "--time-per-move", metavar="TIME", help="Limit per decision instead of the record's time control.")] = None
    clock: Annotated[str | None, typer.Option(
        "--clock", metavar="BASE+INC", help="Game clock instead of the record's time control.")] = None
    league: Annotated[Path | None, typer.Option(
        "--league", metavar="FILE.toml", help="The league file whose game it is: its bots by name, and its chance key "
        "(from its database).")] = None
    log_dir: Annotated[Path | None, typer.Option(
        "--log-dir", help="Folder for the bots' stderr logs (default: a temporary folder, removed afterwards).")] = None
    setup: BotSetup = BotSetup()


@takes(RerunOptions)
def rerun_command(options: RerunOptions) -> None:
    """Play a recorded game again with the same chance: the record's seed and rotation
    cycle (its Seed and Cycle tags) hashed with the same secret key give the same dice
    and deals, each seat gets its ARENA_BOT_SEED from the BotSeeds tag, and the game
    starts from the same opening under the same time control. Bots that are
    deterministic given ARENA_BOT_SEED play it move for move again.

    The key: a league's own (from the league.sqlite beside its records), else
    $ARENA_SECRET, else this installation's. When it is not the record's, the dice and
    deals differ, and the command says so before playing. After the game it says
    whether every ply matched the record, or where the game departed from it."""
    record = nth_record(options.path, options.game_number)
    limits = options.setup.limits()
    own_logs = options.log_dir is None
    named, key = _league(options.league)
    with arena_errors():
        control = None if options.time_per_move is None and options.clock is None else \
            TimeControl.parse(bare_seconds_checked(options.time_per_move, "--time-per-move"), options.clock)
        logs = Path(tempfile.mkdtemp(prefix="arena-logs-")) if options.log_dir is None else \
            prepare_log_dir(options.log_dir)
        rerun = prepare_rerun(record, options.path, options.bots or (), limits, options.setup.bots_file, control,
                              logs, key, named)
        if options.out is not None:
            prepare_out_file(options.out)
    _announce(rerun, options)
    try:
        result = run_sync(lambda: play_match(rerun.config, rerun.specs, keeping(options.out, logs)),
                          stop_on_signals=True)
    except KeyboardInterrupt:
        raise fail("interrupted: every bot was stopped", 130) from None
    except ArenaError as exc:
        raise fail(str(exc)) from None
    finally:
        if own_logs:
            shutil.rmtree(logs, ignore_errors=True)
    _report(rerun, result, options)


def _league(path: Path | None) -> tuple[dict[str, BotSpec] | None, ChanceKey | None]:
    """A league file's bots by name, and its chance key when its database has one."""
    if path is None:
        return None, None
    try:
        league = load_league(path)
    except LeagueFileError as exc:
        raise fail(str(exc)) from None
    secret = league_secret(league.database) if league.database.is_file() else None
    key = ChanceKey(secret, f"the league's own key ({league.database})") if secret is not None else None
    return {bot.name: bot for bot in league.bots}, key


def _announce(rerun: Rerun, options: RerunOptions) -> None:
    """What is played again, with which chance, and whether it can be the record's."""
    tags = rerun.record.tags
    seed = f"Seed {tags.get('Seed')}" + (f", Cycle {tags['Cycle']}" if "Cycle" in tags else " (the game's own seed)")
    if "Cycle" in tags and "Rotation" in tags:
        seed += f" (fresh deals: rotation {tags['Rotation']})"
    console.print(f"game {options.game_number} of {options.path}: {rerun.game.id}, "
                  f"{' v '.join(s.name for s in rerun.specs)}; {seed}; chance key: {rerun.key.source}",
                  highlight=False)
    if rerun.mismatch is not None:
        miss = rerun.mismatch
        warn(f"the dice and deals will differ from the record's: at ply {miss.ply} it holds {miss.recorded!r}, and "
             f"this key draws {miss.drawn!r}, so the record was played with another chance key. Play it where it was "
             f"played, copy that machine's key file ({secret_path()}) or set ${SECRET_ENV} to its key; for a league, "
             f"keep its league.sqlite beside its records")


def _report(rerun: Rerun, result: MatchResult, options: RerunOptions) -> None:
    """The new game, and how it compares with the record."""
    if result.never_ready:
        name, fault = next(iter(result.never_ready.items()))
        raise fail(f"{name} never started ({fault}); check its command")
    outcome = result.outcomes[0]
    console.print(outcome_line(options.game_number - 1, outcome), markup=False, highlight=False)
    if outcome.void:
        raise fail("the game was stopped by an error of the arena (a bug: please report it)", 1)
    difference = rerun.differences(outcome.record)
    plies = len(outcome.record.plies)
    if difference is None:
        console.print(f"the game went as recorded: all {plies} plies the same")
    else:
        number, old, new = difference
        why = "" if rerun.mismatch is None else " (the chance differs: see the warning above)"
        console.print(f"the game departs from the record at ply {number}: recorded {old!r}, now {new!r}{why}",
                      highlight=False)
    if options.out is not None:
        console.print(f"record appended to {options.out}")
