"""`arena check`: does a bot keep the protocol? Like fastchess's --compliance.

The bot plays short games of every game it is asked about, from every seat count and
every seat, against random bots, under a tight clock. A bot that asks for
`legal: false` plays each of them twice: without the legal lists (granted), and with
them (`no-legal` not offered in hello, so it must cope with the lists too); a bot that
takes the lists plays each once, with them. Then one game in which every message carries a
field it cannot know and a message type it cannot know arrives after `start`; then ten
games in a row in one process; then a process is asked to `quit`, and another has its
stdin closed. Each check passes or fails with the line that failed."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import trio

from arena.games import Game
from arena.process.bot_process import launch_process
from arena.process.botnames import resolve_bot
from arena.process.channel import Launch, Launcher, LineChannel
from arena.process.spec import BotSpec, Limits, timed
from arena.referee.match import MatchConfig, MatchResult, PlannedGame, play_match
from arena.referee.player import FEATURES, BotPlayer, Timing
from arena.referee.traffic import LoggedChannel, TrafficLog
from arena.termination import Termination
from arena.timecontrol import TimeControl
from protocol.codec import encode
from protocol.messages import Quit

CHECKS = (
    ("handshake", "answers hello with a valid ready in time"),
    ("in-time", "answers every request within its time"),
    ("legal-actions", "plays only legal actions"),
    ("valid-lines", "writes only valid messages: JSON lines of the right types, under the size limit"),
    ("one-answer", "writes one line per request and nothing it was not asked for"),
    ("stays-up", "keeps running and its pipes open through a game"),
    ("within-limits", "stays within its memory and process limits"),
    ("ignores-unknown", "ignores message fields and message types it does not know"),
    ("many-games", "plays many games in a row in one process"),
    ("exits-on-quit", "exits when told to quit"),
    ("exits-on-closed-stdin", "exits when its stdin closes"),
    ("stderr-within-cap", "writes less to stderr than the log keeps (1 MiB)"),
    ("info-within-cap", "keeps the info of its actions under the record's 1 KB"),
)
"""Every check, in the order of the report."""

REASON_CHECK = {
    Termination.STARTUP_FAILURE: "handshake", Termination.STARTUP_TIMEOUT: "handshake",
    Termination.TIME_OUT: "in-time", Termination.ILLEGAL_ACTION: "legal-actions",
    Termination.MALFORMED: "valid-lines", Termination.OVERSIZED_LINE: "valid-lines",
    Termination.UNEXPECTED_MESSAGE: "one-answer", Termination.CRASH: "stays-up", Termination.CLOSED_PIPE: "stays-up",
    Termination.MEMORY_LIMIT: "within-limits", Termination.PROCESS_LIMIT: "within-limits",
}
"""Which check a fault of the bot in a game fails."""

DIED = (Termination.CRASH, Termination.CLOSED_PIPE, Termination.MEMORY_LIMIT, Termination.PROCESS_LIMIT,
        Termination.STARTUP_FAILURE)
"""Faults of a bot that stopped: the check says which message it followed."""

EXIT_S = 2.0
MANY_GAMES = 10
QUICK_MANY_GAMES = 4
WITH_LISTS = tuple(f for f in FEATURES if f != "no-legal")
"""The features offered in the games with legal lists: everything but `no-legal`."""


@dataclass
class CheckResult:
    """One check: passed or not, what was tried, and the line that failed."""

    name: str
    about: str
    passed: bool = True
    tried: int = 0
    detail: str = ""
    line: str = ""
    skipped: bool = False
    """Not run: an earlier check already failed the way it would."""


@dataclass
class Report:
    """The report of one bot."""

    bot: str
    games: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """How the games were played (with or without legal lists), game by game."""
    checks: dict[str, CheckResult] = field(default_factory=lambda: {n: CheckResult(n, a) for n, a in CHECKS})

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks.values())

    def fail(self, name: str, detail: str, line: str = "") -> None:
        check = self.checks[name]
        check.tried += 1
        if check.passed:  # the first failure is the one reported
            check.passed, check.detail, check.line = False, detail, line

    def ok(self, name: str) -> None:
        self.checks[name].tried += 1

    def skip(self, name: str, why: str) -> None:
        check = self.checks[name]
        if check.passed and not check.tried:
            check.skipped, check.detail = True, f"not run: {why}"


class _ProbingChannel(LoggedChannel):
    """A channel that adds a field no bot knows to every message, and sends a message of
    a type no bot knows after each `start`."""

    async def write(self, data: bytes, deadline: float) -> None:
        if data.startswith(b"{"):
            data = b'{"x_future":{"n":1,"why":"a field of a later protocol"},' + data[1:]
        if b'"type":"start"' in data:
            data += b'{"type":"x-news","text":"a message of a later protocol"}\n'
        await super().write(data, deadline)


def _launcher(logs: Path, probing: bool, started: list[str] | None = None) -> Launcher:
    """The referee's launcher with each bot's traffic logged (`probing`: with messages
    of a later protocol); `started` gets the name of each bot started (twice for a
    bot started again)."""

    async def launch(spec: Launch, nursery: trio.Nursery) -> LineChannel:
        channel = await launch_process(spec, nursery)
        if started is not None:
            started.append(spec.spec.name)
        if spec.log_path is None:
            return channel
        log = TrafficLog(spec.log_path.with_suffix(".protocol.log"))
        return (_ProbingChannel if probing else LoggedChannel)(channel, log)

    return launch


_ENTRY = re.compile(r"^\S+ \+\S+ (?:game (\d+) ply \d+|handshake) ([<>]) (.*)$")
_TYPE = re.compile(r'"type":"([^"]*)"')


@dataclass(frozen=True)
class Traffic:
    """What a protocol log says of the moment a fault ended a game: the bot's last line,
    the referee's last line, and the referee's lines since the bot's last one."""

    got: str = ""
    sent: str = ""
    since: tuple[str, ...] = ()

    def followed(self) -> str:
        """The messages a bot that died was sent after its last line (`start, x-news`)."""
        kinds = [match.group(1) if (match := _TYPE.search(line)) else "(a line)" for line in self.since]
        return ", ".join(kinds)


def _traffic_lines(log: Path) -> list[tuple[int | None, str, str]]:
    """A protocol log's lines: (match game or None at a handshake, `<` or `>`, the line)."""
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [(int(m.group(1)) if m.group(1) else None, m.group(2), m.group(3))
            for line in lines if (m := _ENTRY.match(line))]


def _traffic(log: Path, game: int | None = None) -> Traffic:
    """The traffic up to the end of match game `game` (1-based; None: the whole log): a
    bot restarted after a fault appends to the same log, so the lines after a game
    belong to later games."""
    entries = _traffic_lines(log)
    if game is not None:
        ours = [i for i, entry in enumerate(entries) if entry[0] == game]
        later = [i for i, entry in enumerate(entries) if entry[0] is not None and entry[0] > game]
        entries = entries[: ours[-1] + 1] if ours else entries[: later[0]] if later else entries
    got = sent = ""
    since: list[str] = []
    for _, way, text in entries:
        if way == "<":
            got, since = text, []
        else:
            sent = text
            since.append(text[:300])
    return Traffic(got[:300], sent[:300], tuple(since))


def _opts_out_per_game(folder: Path, game: Game) -> bool:
    """Whether the bot, in the games of `game` it played with every feature offered,
    sent `legal: false` in an action (the per-game opt-out of the legal lists)."""
    for log in folder.glob(f"{game.id}-*-plain-1-{len(FEATURES)}/*.protocol.log"):
        seat = log.name.split("-", 1)[0]
        if not log.parent.name.endswith(f"-{seat}-plain-1-{len(FEATURES)}"):
            continue  # another seat's log: a random bot's
        for entry in _traffic_lines(log):
            if entry[1] == "<" and '"legal"' in entry[2]:
                try:
                    message = json.loads(entry[2])
                except ValueError:
                    continue
                if isinstance(message, dict) and message.get("type") == "action" and message.get("legal") is False:
                    return True
    return False


@dataclass
class Checker:
    """Runs the checks of one bot."""

    spec_for: Callable[[Game], BotSpec]
    """The bot for a game (a shipped name means another program per game)."""
    games: list[Game]
    time_control: TimeControl = TimeControl(per_move_s=0.5)
    timing: Timing = Timing(startup_s=10.0, grace_s=0.05)
    limits: Limits = Limits()
    quick: bool = False
    """One seat count and one seat per game instead of all of them."""
    progress: Callable[[str], None] = lambda text: None

    def run(self) -> Report:
        report = Report(self.spec_for(self.games[0]).name)
        folder = Path(tempfile.mkdtemp(prefix="arena-check-"))
        try:
            for game in self.games:
                modes = self._legal_modes(report, game, folder)
                self._settings(report, game, folder, modes)
                if len(modes) == 1 and _opts_out_per_game(folder, game):
                    report.notes.append(f"{game.id}: the bot opts out of the legal lists in its actions (legal: "
                                        "false), so each setting was played again with the lists sent all the "
                                        "same (no-legal not offered in hello)")
                    self._settings(report, game, folder, [(", per-game opt-out not granted", WITH_LISTS)])
            first = self.games[0]
            if not report.checks["handshake"].passed:
                for name in report.checks:
                    report.skip(name, "the bot did not start")
                return report
            if any(not report.checks[name].passed for name in REASON_CHECK.values()):
                for name in ("ignores-unknown", "many-games"):
                    report.skip(name, "the bot already failed in the games above")
            else:
                self.progress("unknown fields and messages")
                self._game(report, first, max(2, first.min_seats), 0, folder, probing=True, check="ignores-unknown")
                many = QUICK_MANY_GAMES if self.quick else MANY_GAMES
                self.progress(f"{many} games in one process")
                self._game(report, first, max(2, first.min_seats), 0, folder, probing=False, games=many,
                           check="many-games")
            self.progress("quit and closed stdin")
            trio.run(self._exits, report, folder, self.spec_for(first))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return report

    def _settings(self, report: Report, game: Game, folder: Path, modes: list[tuple[str, tuple[str, ...]]]) -> None:
        """Every seat count and seat of `game`, in each way of sending the lists."""
        for seats, seat in self._seatings(game):
            for mode, features in modes:
                label = f"{game.id}, {seats} seat(s), seat {seat}{mode}"
                self.progress(label)
                report.games.append(label)
                self._game(report, game, seats, seat, folder, probing=False, features=features, mode=mode)

    def _legal_modes(self, report: Report, game: Game, folder: Path) -> list[tuple[str, tuple[str, ...]]]:
        """How `game` is played: with the lists, and without them too if the bot asks for
        `legal: false` (a label for each way, and the features hello offers)."""
        logs = folder / f"probe-{game.id}"
        logs.mkdir()
        if not trio.run(self._asks_no_legal, logs, self.spec_for(game)):
            report.notes.append(f"{game.id}: the bot takes the legal lists (it does not ask for legal: false), "
                                "so each setting was played with them")
            return [("", FEATURES)]
        report.notes.append(f"{game.id}: the bot asks for legal: false, so each setting was played twice: "
                            "without the legal lists, and with them (no-legal not offered in hello)")
        return [(", no legal lists", FEATURES), (", legal lists sent", WITH_LISTS)]

    async def _asks_no_legal(self, logs: Path, spec: BotSpec) -> bool:
        """Whether the bot's `ready` asks for `legal: false` (False if it never gets
        that far: the games then report why)."""
        player = BotPlayer(spec, logs / "bot.log", self.limits, self.timing)
        async with trio.open_nursery() as nursery:
            try:
                await player.start(nursery)
                return player.ready is not None and not player.ready.legal
            except Exception:  # noqa: BLE001 - the games that follow report a bot that cannot start
                return False
            finally:
                player.dispose()
                nursery.cancel_scope.cancel()

    def _seatings(self, game: Game) -> list[tuple[int, int]]:
        counts = [n for n in range(max(1, game.min_seats), game.max_seats + 1)]
        if self.quick:
            count = max(2, game.min_seats) if game.max_seats >= 2 else game.min_seats
            return [(count, 0)]
        return [(n, s) for n in counts for s in range(n)]

    def _game(self, report: Report, game: Game, seats: int, seat: int, folder: Path, probing: bool,
              games: int = 1, check: str | None = None, features: tuple[str, ...] = FEATURES,
              mode: str = "") -> None:
        logs = folder / f"{game.id}-{seats}-{seat}-{'probe' if probing else 'plain'}-{games}-{len(features)}"
        others = [replace(resolve_bot("random", game.id), name=f"random-{k}") for k in range(seats - 1)]
        spec = self.spec_for(game)
        bot = replace(spec, env=dict(spec.env))
        specs = timed(others[:seat] + [bot] + others[seat:], self.time_control)
        options = game.resolve_options(game.quick_options)  # short games: the smallest boards
        plan = tuple(PlannedGame(tuple(range(seats)), 1000 + k, str(k + 1)) for k in range(games))
        started: list[str] = []
        config = MatchConfig(game, options, games=games, event="arena check", log_dir=logs, limits=self.limits,
                             timing=self.timing, plan=plan, launcher=_launcher(logs, probing, started),
                             chance_key=b"arena-check", features=features)
        result: MatchResult = trio.run(play_match, config, specs)
        self._read(report, result, seat, logs, game, check, mode, restarted=len(started) > len(specs))

    def _read(self, report: Report, result: MatchResult, seat: int, logs: Path, game: Game,
              check: str | None, mode: str = "", restarted: bool = False) -> None:
        protocol_log = next(iter(sorted(logs.glob(f"{seat}-*.protocol.log"))), logs / "none")
        got = _traffic(protocol_log).got
        faulted = False
        for number, outcome in enumerate(result.outcomes, 1):
            for fault in outcome.faults:
                if fault.seat != seat:
                    continue
                faulted = True
                natural = REASON_CHECK.get(fault.reason, "stays-up")
                # A special game (unknown messages, many games) fails its own check only
                # when the plain games did not already fail the same way.
                name = check if check is not None and report.checks[natural].passed else natural
                where = f"{game.id}, {len(outcome.ranks)} seat(s), seat {seat}{mode}, game {number}"
                traffic = _traffic(protocol_log, number)
                detail, line = f"{where}: {fault.reason} {fault.when}: {fault.detail}", traffic.got
                if fault.reason in (Termination.TIME_OUT, Termination.STARTUP_TIMEOUT):
                    line = f"(no answer to) {traffic.sent}"
                elif fault.reason in DIED and traffic.since:
                    detail += f" (after it was sent: {traffic.followed()})"
                    line = "(sent since its last line) " + " | ".join(text[:120] for text in traffic.since)
                report.fail(name, detail, line)
            for ply in outcome.record.plies:
                if ply.actor == seat and ply.comment_text() and "[arena: cut to" in (ply.comment_text() or ""):
                    report.fail("info-within-cap", f"{game.id}: its info at ply was cut to the record's 1 KB",
                                got)
                    break
        if check is not None and not faulted:
            report.ok(check)
        if check == "many-games" and not faulted and restarted:
            report.fail("many-games", "the bot had to be started again between games", got)
        if not faulted and check is None:
            for name in ("handshake", "in-time", "legal-actions", "valid-lines", "one-answer", "stays-up",
                         "within-limits"):
                report.ok(name)
        logs_of_seat = [p for p in logs.glob(f"{seat}-*.log") if not p.name.endswith(".protocol.log")]
        stderr = logs_of_seat[0].read_text(errors="replace") if logs_of_seat else ""
        if "[arena: log capped at" in stderr:
            report.fail("stderr-within-cap", f"{game.id}: it wrote more to stderr than the 1 MiB the log keeps",
                        "")
        else:
            report.ok("stderr-within-cap")
        report.ok("info-within-cap")

    async def _exits(self, report: Report, folder: Path, spec: BotSpec) -> None:
        """Both exit checks at once: a process told to quit, another whose stdin closes."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._exit, report, folder, spec, "exits-on-quit", False)
            nursery.start_soon(self._exit, report, folder, spec, "exits-on-closed-stdin", True)

    async def _exit(self, report: Report, folder: Path, spec: BotSpec, name: str, close: bool) -> None:
        logs = folder / name
        logs.mkdir()
        player = BotPlayer(spec, logs / "bot.log", self.limits, self.timing, _launcher(logs, False))
        async with trio.open_nursery() as nursery:
            try:
                try:
                    await player.start(nursery)
                except Exception as exc:  # noqa: BLE001 - a bot that cannot start fails the handshake instead
                    report.fail(name, f"it did not start ({exc})")
                    return
                channel = player.channel
                assert channel is not None
                if close:
                    channel.close_input()
                else:
                    await channel.write(encode(Quit()), trio.current_time() + 1)
                with trio.move_on_after(EXIT_S):
                    await channel.exited()
                if channel.running:
                    what = "its stdin was closed" if close else "it was sent quit"
                    report.fail(name, f"still running {EXIT_S:g} s after {what}",
                                "(stdin closed)" if close else '{"type":"quit"}')
                else:
                    report.ok(name)
            finally:
                player.dispose()
                nursery.cancel_scope.cancel()
