"""`arena match A B --game G --sprt elo0=0 elo1=10`: a two-bot match in pairs of games
(same seed, colours swapped) that stops as soon as the SPRT decides, like fastchess."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from arena.cli.common import (
    arena_errors,
    console,
    fail,
    finish_match,
    interrupted,
    json_output,
    print_json,
    warn,
)
from arena.cli.options import (
    BotSetup,
    EventArg,
    JsonArg,
    LogProtocolArg,
    Openings,
    OptionArg,
    Seeds,
    Times,
    event_tag,
    match_request,
    takes,
)
from arena.cli.summary import match_document, match_table, match_time_outs, print_time_outs
from arena.errors import ArenaError, excerpt
from arena.referee.match import MatchResult
from arena.referee.outcome import GameOutcome
from arena.referee.scheduling import allowed_cores, concurrency_refusal, core_slots, pinned
from arena.referee.timeouts import termination_text
from arena.session.paired import PairedMatch, prepare_pairs
from arena.session.request import PreparedMatch
from arena.session.runner import run_sync
from arena.stats.elo_text import MatchElo
from arena.stats.fastchess_text import FastchessFigures, sprt_verdict
from arena.stats.sprt import PairStats, SprtParameters
from arena.termination import Termination
from arena.timecontrol import Basis

SPRT_ITEM = re.compile(r"^(elo0|elo1|alpha|beta|model)=\S*$")
SETTING = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=[^\s/]*$")
"""A NAME=VALUE argument: an SPRT setting (a bot's command line never looks like this)."""


def describe_stats(stats: PairStats, params: SprtParameters | None, names: Sequence[str] = ("A", "B")) -> str:
    """The state of a match in one line, every figure with its subject: B's (the
    candidate's) Elo over A, its LOS, the pairs and the LLR (arena/stats/elo_text.py)."""
    return MatchElo(names[1], names[0], stats).line(params)


@dataclass(frozen=True)
class MatchOptions:
    """Everything `arena match` takes, in the order its help lists it."""

    args: Annotated[list[str], typer.Argument(
        metavar="A B [elo0=N elo1=N alpha=P beta=P model=M]",
        help="The two bots (A is the baseline, B the candidate), then the SPRT settings with --sprt.")]
    game_id: Annotated[str, typer.Option("--game", "-g", help="Game id (a 2-seat game), e.g. btt.")]
    games: Annotated[int, typer.Option("--games", "-n", min=2, help="Most games to play (pairs of two).")] = 1000
    sprt: Annotated[bool, typer.Option(
        "--sprt", help="Stop as soon as the SPRT decides whether B is stronger (defaults elo0=0 elo1=10 "
        "alpha=0.05 beta=0.05 model=logistic; model=normalized: normalised Elo, as fastchess and fishtest).")] = False
    seeds: Seeds = Seeds()
    out: Annotated[Path | None, typer.Option(
        "--out", metavar="FILE", help="Append every game's record to FILE and store the match in FILE.sqlite beside "
        "it as each game ends: the same command run again resumes it (without --out nothing is kept, and an "
        "interrupted match starts over).")] = None
    event: EventArg = None
    times: Times = Times()
    option: OptionArg = None
    setup: BotSetup = BotSetup()
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No rating line while the match runs.")] = False
    report_every: Annotated[int, typer.Option(
        "--report-every", metavar="N", min=1, help="Print the rating line after every N pairs (fastchess "
        "-ratinginterval; a pair is two games).")] = 1
    concurrency: Annotated[int, typer.Option(
        "--concurrency", "-c", min=1, max=256, help="Games played at once (each pair of games on one table of "
        "its own bots); default 1. On the wall basis, at most this machine's cores unless --force-concurrency.")] = 1
    force_concurrency: Annotated[bool, typer.Option(
        "--force-concurrency", help="Allow a --concurrency above this machine's cores on the wall basis (bots "
        "waiting for a core lose on time; --time-basis cpu does not need it).")] = False
    affinity: Annotated[bool, typer.Option(
        "--affinity", help="Pin each table's bots to cores of their own (fastchess -use-affinity).")] = False
    json_flag: JsonArg = False
    log_protocol: LogProtocolArg = False
    book: Openings = Openings()

    def check_concurrency(self, basis: Basis) -> None:
        """Refuse (exit 2) more tables than this machine's cores on the wall basis (the
        request's `basis`, read from --time-basis), unless forced (then a warning)."""
        cores = len(allowed_cores())
        refusal = concurrency_refusal(self.concurrency, basis,
                                      (f"--concurrency {cores} or less", "--time-basis cpu", "--force-concurrency"))
        if refusal is not None and not self.force_concurrency:
            raise fail(refusal)
        if refusal is not None:
            warn(f"--concurrency {self.concurrency} is more than this machine's {cores} cores (forced): bots "
                 "waiting for a core may lose on time")

    def bots_and_sprt(self) -> tuple[list[str], SprtParameters | None]:
        """The two bots and the SPRT's settings, told apart among the arguments."""
        settings = [a for a in self.args if SETTING.match(a)]
        for item in settings:
            if not SPRT_ITEM.match(item):
                raise fail(f"{excerpt(item)} is not an SPRT setting; write elo0=N, elo1=N, alpha=P, beta=P or "
                           "model=logistic|normalized")
        bots = [a for a in self.args if not SETTING.match(a)]
        if settings and not self.sprt:
            raise fail(f"{settings[0]} is an SPRT setting: add --sprt")
        if len(bots) != 2:
            raise fail(f"a match needs exactly two bots, A and B; got {len(bots)}: {' '.join(bots) or 'none'}")
        try:
            return bots, SprtParameters.parse(settings) if self.sprt else None
        except ValueError as exc:
            raise fail(f"--sprt: {exc}") from None


@takes(MatchOptions)
def match_command(options: MatchOptions) -> None:
    """Play A against B in pairs of games with colours swapped and the same seed; print
    B's Elo over A with its 95% interval ("B vs A: B's Elo +35.2 [+10.1, +60.3]"; a
    bound such as "> +484" while A has not scored), the likelihood that B is stronger
    (LOS) and the pentanomial counts of the pairs. With --sprt, stop when the test
    decides."""
    with json_output(options.json_flag):
        bots, params = options.bots_and_sprt()
        with arena_errors():
            request = match_request(options, bots, out=options.out, log_protocol=options.log_protocol,
                                    event=event_tag(options.event, "arena match"))
        options.check_concurrency(request.time_basis or "wall")
        with arena_errors():
            paired = prepare_pairs(request, options.concurrency, params, notes=warn)
        if options.affinity:  # table k on slot k's cores, its bots kept for all its games
            paired.configs = [pinned(config, cores)
                              for config, cores in zip(paired.configs, core_slots(options.concurrency), strict=False)]
        ended: list[GameOutcome] = [g.outcome for g in sorted(paired.earlier, key=lambda g: g.index)]
        try:
            _resuming(paired)
            result = _play(paired, options.quiet, ended, options.report_every)
        finally:
            paired.close()
        _report(paired, result, options.json_flag, ended)


def _resuming(paired: PairedMatch) -> None:
    """What an earlier run of the same match left: its stored games, a test decided."""
    for note in paired.notes:
        warn(note)
    if paired.store is None or not paired.resumed:
        return
    console.print(f"resuming: {paired.resumed} of {paired.asked} games stored ({paired.store.path})",
                  highlight=False)
    if paired.decision is not None:
        console.print(f"the SPRT decided on the stored pairs ({paired.decision}): no game is played", highlight=False)
    elif not paired.games:
        console.print(f"all {paired.asked} games are already played (raise --games to play more)", highlight=False)


def _play(paired: PairedMatch, quiet: bool, ended: list[GameOutcome], report_every: int = 1) -> MatchResult:
    """Play the pairs with a progress bar, a rating line every `report_every` completed
    pairs (fitted to the terminal's width: the whole line is the final report's) and
    one per game ended on time (who and by how much); `ended` gets the games as they
    end."""
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("ETA"), TimeRemainingColumn(), console=console, transient=True,
                        disable=quiet or not console.is_terminal)
    task = progress.add_task("games", total=paired.games)
    names = [spec.name for spec in paired.match.specs]

    def pair_done(stats: PairStats) -> None:
        if not quiet and (stats.pairs % report_every == 0 or paired.decision is not None):
            line = MatchElo(names[1], names[0], stats).fitted_line(progress.console.width, paired.sprt)
            progress.console.print(line, highlight=False)

    def game_done(outcome: GameOutcome) -> None:
        ended.append(outcome)
        if not quiet and outcome.termination == Termination.TIME_OUT:
            tags = outcome.record.tags
            progress.console.print(f"game {tags.get('Round', '?')} ({tags.get('White', '?')} vs "
                                   f"{tags.get('Black', '?')}): [{termination_text(outcome)}]", highlight=False,
                                   soft_wrap=False)  # wrapped at the terminal's width, a log's 80 columns
        progress.advance(task)

    try:
        with progress:
            return run_sync(lambda: paired.play(game_done, pair_done), stop_on_signals=True)
    except KeyboardInterrupt:
        if paired.store is not None:
            paired.match.discard_empty_records()
            stored = paired.store.count()
            raise fail(f"interrupted: every bot was stopped; {stored} of {paired.asked} games are stored in "
                       f"{paired.store.path} (their records in {paired.match.out}): run the same command again to "
                       "resume", 130) from None
        raise interrupted(paired.match, paired.played - len(paired.voided)) from None
    except ArenaError as exc:
        raise fail(str(exc)) from None
    finally:
        paired.match.discard_empty_records()


def time_text(match: PreparedMatch) -> str:
    """The time control as fastchess's report head gives it (`0.1/move`, `10+0.1`)."""
    texts = []
    for spec in match.specs:
        control = spec.time_control
        if control is None:
            continue
        parts = [f"{control.per_move_s:g}/move"] if control.per_move_s is not None else []
        if control.base_s is not None:
            parts.append(f"{control.base_s:g}+{control.increment_s:g}")
        text = " ".join(parts)
        if text not in texts:
            texts.append(text)
    return " - ".join(texts)


def _report(paired: PairedMatch, result: MatchResult, json_flag: bool, ended: list[GameOutcome]) -> None:
    """The table, the games decided by time (with a warning when the machine may have
    decided them), B's Elo over A, the SPRT's verdict, and the JSON document."""
    match, stats, params = paired.match, paired.stats, paired.sprt
    console.print(match_table(result, match.game))
    names = result.names
    time_outs = match_time_outs(result, match.basis, ended)
    print_time_outs(time_outs)
    console.print(describe_stats(stats, params, names), highlight=False)
    figures = FastchessFigures(names[1], names[0], stats)
    console.print("\n".join(figures.lines(time_text(match), params)), highlight=False, soft_wrap=True)
    console.print(figures.score_line(), highlight=False, soft_wrap=True)
    verdict_text = None
    if params is not None:
        if paired.decision is not None:
            verdict_text = sprt_verdict(paired.decision, params, names[1], names[0])
        else:
            verdict_text = f"no decision after {len(result.outcomes)} games (raise --games)"
        if time_outs.decided:
            verdict_text += f" ({time_outs.decided} of {time_outs.games} games were decided by time-outs)"
        console.print(f"SPRT {params.describe()}: {verdict_text}", highlight=False)
    if json_flag:
        document = {**match_document(result, match.game, match.options, time_outs),
                    "records": None if match.out is None else str(match.out),
                    "store": None if paired.store is None else str(paired.store.path), "resumed": paired.resumed,
                    "elo": {"candidate": names[1], "baseline": names[0],
                            **MatchElo(names[1], names[0], stats).document()},
                    "fastchess": {"lines": figures.lines(time_text(match), params), "score_line": figures.score_line(),
                                  **figures.document()}}
        if params is not None:
            document["sprt"] = {"elo0": params.elo0, "elo1": params.elo1, "alpha": params.alpha, "beta": params.beta,
                                "model": params.model, "llr": stats.llr(params), "lower": params.lower_bound,
                                "upper": params.upper_bound,
                                "decision": paired.decision, "verdict": verdict_text}
        print_json(document)
    finish_match(match, result)
