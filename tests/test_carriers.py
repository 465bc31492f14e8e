"""Each value has one typed carrier: text becomes a TimeControl only where it enters
(the command line, a league file, the registry, a record's tags; the library's values
through one conversion), a seat's time control lives in its BotSpec alone, a bot's seed
is `BotSpec.bot_seed` and the launcher writes ARENA_BOT_SEED from it, and a request's
variant options and bot folders are checked once."""

from __future__ import annotations

import math
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from arena.cli.options import Times
from arena.cluster.units import local_spec, portable_bot
from arena.games.base import Game
from arena.process import folder_checks
from arena.process.botnames import resolve_bot
from arena.process.sandbox import probe
from arena.process.spec import BOT_SEED_ENV, BotSpec, Limits, timed
from arena.records.record import GameRecord
from arena.referee.seeds import derived_bot_seed
from arena.session import api
from arena.session.request import MatchRequest, prepare_match
from arena.session.rerun import RerunError, prepare_rerun
from arena.session.runner import play_prepared, run_sync
from arena.session.simplebot import Bot
from arena.timecontrol import TimeControl, TimeControlError, time_control
from tests.helpers.botmatch import run_match
from tests.helpers.cli import run_cli

ROOT = Path(__file__).resolve().parents[1]
PARSERS = re.compile(r"\b(TimeControl\.parse|parse_seconds|parse_basis|own_time_control)\(")
ENTRIES = {"arena/timecontrol.py", "arena/cli/options.py", "arena/cli/check.py", "arena/cli/demo.py",
           "arena/cli/match.py", "arena/cli/rerun.py", "arena/league/config.py", "arena/league/registry.py",
           "arena/session/rerun.py"}
"""Where a time control may be parsed from text: its own module, the command line's
options, the league file, the registry, and the record's TimeControl tag."""
PLAIN = Limits(sandbox=False)

REPORTER = """
import json, os, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        try:
            with open(os.environ["BOOK"]) as handle:
                book = handle.read().strip()
        except OSError:
            book = "blind"
        name = os.environ.get("ARENA_BOT_SEED", "none") + "|" + book
        print(json.dumps({"type": "ready", "name": name}), flush=True)
    elif message["type"] == "quit":
        break
"""
"""A bot whose `ready` name tells its ARENA_BOT_SEED and what it read of $BOOK."""


# ---- where text becomes a time control --------------------------------------------------------


def counted_checks(monkeypatch: pytest.MonkeyPatch, *where: str) -> list[int]:
    """The bots each call of check_bots checked (their count), as the modules named in
    `where` call it; the check itself still runs."""
    checks: list[int] = []
    real_check = folder_checks.check_bots

    def check_bots(specs: list[BotSpec], limits: Limits, outputs: list[Path]) -> None:
        checks.append(len(list(specs)))
        real_check(specs, limits, outputs)

    for module in where:
        monkeypatch.setattr(f"{module}.check_bots", check_bots)
    return checks


def counted_resolutions(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, str]]:
    """The options every Game.resolve_options call was given (it still resolves them)."""
    resolved: list[dict[str, str]] = []
    real_resolve = Game.resolve_options

    def resolve_options(game: Game, given: dict[str, str]) -> dict[str, str]:
        resolved.append(dict(given))
        return real_resolve(game, given)

    monkeypatch.setattr(Game, "resolve_options", resolve_options)
    return resolved


def test_time_controls_are_parsed_only_where_text_enters() -> None:
    parsing = set()
    for path in (ROOT / "arena").rglob("*.py"):
        if PARSERS.search(path.read_text(encoding="utf-8")):
            parsing.add(str(path.relative_to(ROOT)))
    assert parsing <= ENTRIES, sorted(parsing - ENTRIES)
    assert {"arena/cli/options.py", "arena/league/config.py", "arena/session/rerun.py"} <= parsing


def test_the_library_values_go_through_one_conversion() -> None:
    assert time_control(0.5) == time_control("500ms") == TimeControl(per_move_s=0.5)
    assert time_control(2) == TimeControl(per_move_s=2.0)
    clock = TimeControl(per_move_s=None, base_s=60.0, increment_s=1.0)
    assert time_control(clock) is clock
    assert api.time_controls([1, "200ms", clock]) == (TimeControl(per_move_s=1.0), TimeControl(per_move_s=0.2), clock)
    for bad, fragment in ((0, "more than zero"), (-1.5, "more than zero"), (math.nan, "not a time"),
                          (10**400, "more than a week"), (-(10**400), "more than zero"),
                          (1e-6, "less than a millisecond"), (10**7, "more than a week"), (True, "not a time"),
                          ("", "not a time"), ("fast", "not a time")):
        with pytest.raises(TimeControlError, match=fragment):
            time_control(bad, "time")
    with pytest.raises(TimeControlError, match="^limit: "):
        time_control("soon", "limit")


def test_the_command_line_times_become_time_controls_in_its_options() -> None:
    assert Times().controls(2) == ()
    assert Times(time_per_move="1s:200ms").controls(2) == (TimeControl(per_move_s=1.0), TimeControl(per_move_s=0.2))
    assert Times(clock="60+1").controls(3) == (TimeControl(per_move_s=None, base_s=60.0, increment_s=1.0),) * 3
    assert Times(time_basis="CPU").basis() == "cpu"
    timing = Times(startup_time="3s", grace="50ms").timing()
    assert (timing.startup_s, timing.grace_s) == (3.0, 0.05)
    with pytest.raises(TimeControlError, match="--time-per-move '1s:2s:3s': 3 values for 2 bots"):
        Times(time_per_move="1s:2s:3s").controls(2)


# ---- a seat's time control lives in its spec ---------------------------------------------------


def test_every_prepared_seat_carries_its_own_time_control(tmp_path: Path) -> None:
    uniform = prepare_match(MatchRequest("btt", ["random", "random"], limits=PLAIN, log_dir=tmp_path / "a"))
    assert [s.time_control for s in uniform.specs] == [TimeControl(), TimeControl()]
    handicap = (TimeControl(per_move_s=1.0), TimeControl(per_move_s=0.2))
    prepared = prepare_match(MatchRequest("btt", ["random", "random"], time_controls=handicap, limits=PLAIN,
                                          log_dir=tmp_path / "b"))
    assert tuple(s.time_control for s in prepared.specs) == handicap
    assert not hasattr(prepared.config, "time_control")


def test_a_bot_with_its_own_control_keeps_it_beside_the_match_s() -> None:
    own = TimeControl(per_move_s=0.3)
    bots = timed([BotSpec("a", ["x"]), BotSpec("b", ["x"], time_control=own)], TimeControl(per_move_s=2.0))
    assert [b.time_control for b in bots] == [TimeControl(per_move_s=2.0), own]


def test_play_match_refuses_a_bot_without_a_time_control() -> None:
    with pytest.raises(ValueError, match="no time control for b"):
        run_match("btt", timed([BotSpec("a", ["x"])], TimeControl()) + [BotSpec("b", ["x"])], None, seed=1)


def test_a_rerun_seats_the_record_s_controls_and_seeds(tmp_path: Path) -> None:
    record = GameRecord(tags={"Game": "btt", "Seats": "2", "Player0": "random", "Player1": "random-2",
                              "Seed": "7", "Options": "board=wedge", "BotSeeds": "12,34",
                              "TimeControl": "move=1s / move=0.2s"}, plies=[])
    rerun = prepare_rerun(record, tmp_path / "games.pgn", limits=PLAIN)
    assert [s.bot_seed for s in rerun.specs] == [12, 34]
    assert [s.time_control for s in rerun.specs] == [TimeControl(per_move_s=1.0), TimeControl(per_move_s=0.2)]
    assert all(BOT_SEED_ENV not in s.env for s in rerun.specs)
    given = prepare_rerun(record, tmp_path / "games.pgn", limits=PLAIN, control=TimeControl(per_move_s=3.0))
    assert [s.time_control for s in given.specs] == [TimeControl(per_move_s=3.0)] * 2
    record.tags["BotSeeds"] = "12,lucky"
    with pytest.raises(RerunError, match="'lucky' for seat 1, not a whole number"):
        prepare_rerun(record, tmp_path / "games.pgn", limits=PLAIN)


def test_a_cluster_unit_carries_each_bot_s_control_and_seed() -> None:
    spec = replace(resolve_bot("random", "btt"), time_control=TimeControl(per_move_s=0.7), bot_seed=99)
    travelled = portable_bot(spec, {})
    again = local_spec(travelled, Path(spec.cwd) if spec.cwd else None)
    assert (again.time_control, again.bot_seed) == (TimeControl(per_move_s=0.7), 99)


# ---- the bot's seed ---------------------------------------------------------------------------


def test_the_seed_is_typed_and_wins_over_an_env_variable_of_the_same_name() -> None:
    spec = BotSpec("a", ["x"], env={BOT_SEED_ENV: "mine", "OTHER": "1"})
    assert spec.environment() == {BOT_SEED_ENV: "mine", "OTHER": "1"}
    spec.bot_seed = 42
    assert spec.environment() == {BOT_SEED_ENV: "42", "OTHER": "1"}
    assert spec.env[BOT_SEED_ENV] == "mine"  # the environment is made, the spec's env left as given


def test_a_match_seeds_each_bot_in_its_spec_and_the_record_keeps_it(tmp_path: Path) -> None:
    prepared = prepare_match(MatchRequest("btt", ["random", "random"], bot_seed=5, seed=1, limits=PLAIN,
                                          log_dir=tmp_path))
    assert [s.bot_seed for s in prepared.specs] == [derived_bot_seed(b"5", 0), derived_bot_seed(b"5", 1)]
    assert all(BOT_SEED_ENV not in s.env for s in prepared.specs)
    result = run_sync(lambda: play_prepared(prepared))
    seats = result.seatings[0]
    assert result.outcomes[0].record.tags["BotSeeds"] == ",".join(str(prepared.specs[b].bot_seed) for b in seats)


def _reporter(folder: Path, book: Path) -> BotSpec:
    folder.mkdir()
    (folder / "reporter.py").write_text(REPORTER)
    book.write_text("the book")
    for path in (folder, folder / "reporter.py", book):
        path.chmod(0o755)
    return BotSpec("reporter", [sys.executable, str(folder / "reporter.py")], str(folder),
                   env={"BOOK": str(book), BOT_SEED_ENV: "the user's"}, time_control=TimeControl(per_move_s=0.4),
                   named=False, ro_paths=(str(book),))


async def _ready_name(spec: BotSpec, sandbox: bool) -> tuple[str, BotSpec]:
    async with Bot.popen(spec, sandbox=sandbox, bot_seed=5) as bot:
        return bot.name, bot.player.spec


@pytest.mark.parametrize("sandbox", [False, pytest.param(True, marks=pytest.mark.skipif(
    not probe().sandbox, reason="no sandbox on this machine"))])
def test_a_bot_spec_given_to_a_bot_is_copied_whole_and_its_seed_is_written_by_the_launcher(
        tmp_path: Path, sandbox: bool) -> None:
    book = tmp_path / "book.txt"
    spec = _reporter(tmp_path / "bot", book)
    name, started = trio.run(_ready_name, spec, sandbox)
    assert name == f"{derived_bot_seed(b'5', 0)}|the book"  # under a sandbox: its ro_paths were kept
    assert (started.ro_paths, started.time_control, started.named) == (spec.ro_paths, spec.time_control, False)
    assert spec.bot_seed is None and started is not spec


# ---- once per request -------------------------------------------------------------------------


def test_arena_play_checks_the_bots_and_resolves_the_options_once(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    resolved = counted_resolutions(monkeypatch)
    checks = counted_checks(monkeypatch, "arena.session.request", "arena.referee.match")
    prepared = prepare_match(MatchRequest("btt", ["random", "random"], games=2, options=["board=wedge"],
                                          limits=PLAIN, log_dir=tmp_path))
    assert (checks, len(resolved)) == ([2], 1)
    result = run_sync(lambda: play_prepared(prepared))
    assert len(result.outcomes) == 2 and checks == [2]
    assert len(resolved) == 1 + 2  # the request's, then one per game: the rules' own new_state


def test_a_league_checks_its_bots_once_not_once_a_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checks = counted_checks(monkeypatch, "arena.session.league", "arena.referee.match")
    (tmp_path / "league.toml").write_text(
        'name = "checked once"\ngame = "btt"\nseed = 3\nconcurrency = 1\ngames_per_pairing = 2\nsandbox = false\n'
        'bots = [{ name = "a", command = "random" }, { name = "b", command = "random" }, '
        '{ name = "c", command = "random" }]\n[time]\nper_move = "2s"\n')
    done = run_cli("league", "run", str(tmp_path / "league.toml"), "--quiet")
    assert done.exit_code == 0, done.output
    assert checks == [3]  # the session's, over every bot; none of the three tables again


def test_a_league_runner_without_a_session_checks_each_table_s_bots(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bench and tests build a LeagueRunner with no session: nobody checked its
    bots before, so every table checks its own (MatchConfig.prepared stays False)."""
    from arena.league.config import load_league
    from arena.league.runner import LeagueRunner, open_league

    checks = counted_checks(monkeypatch, "arena.referee.match")
    (tmp_path / "league.toml").write_text(
        'name = "checked by tables"\ngame = "btt"\nseed = 3\nconcurrency = 1\ngames_per_pairing = 2\n'
        'sandbox = false\nbots = [{ name = "a", command = "random" }, { name = "b", command = "random" }, '
        '{ name = "c", command = "random" }]\n[time]\nper_move = "2s"\n')
    league = load_league(tmp_path / "league.toml")
    store, schedule = open_league(league)
    try:
        runner = LeagueRunner(league, store, schedule)
        trio.run(runner.run)
    finally:
        store.close()
    assert runner.progress.done == len(schedule) == 6
    assert checks == [2, 2, 2]  # one check per table (three pairings), of its two bots


def test_a_paired_match_reads_its_openings_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.referee.openings import load_openings as real_load
    from arena.session import paired, setup

    read: list[Path] = []

    def load_openings(path: Path, *args: object) -> object:
        read.append(path)
        return real_load(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(setup, "load_openings", load_openings)
    book = Path(__file__).resolve().parents[1] / "bots" / "openings" / "treeblox.txt"
    match = paired.prepare_pairs(MatchRequest("treeblox", ["random", "greedy"], games=2, openings=book,
                                              limits=PLAIN, log_dir=tmp_path / "logs"))
    try:
        assert read == [book]
    finally:
        match.close()


def test_a_rerun_resolves_the_record_s_options_and_checks_its_bots_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    resolved = counted_resolutions(monkeypatch)
    checks = counted_checks(monkeypatch, "arena.session.rerun", "arena.referee.match")
    record = GameRecord(tags={"Game": "btt", "Seats": "2", "Player0": "random", "Player1": "random",
                              "Seed": "7", "Options": "board=wedge", "TimeControl": "move=5s"}, plies=[])
    rerun = prepare_rerun(record, tmp_path / "games.pgn", limits=PLAIN, log_dir=tmp_path / "logs")
    assert checks == [2]
    before = len(resolved)  # the record's, and the new_state that tells whether the chance key fits
    result = run_match(rerun.config, rerun.specs, None)
    assert len(result.outcomes) == 1 and checks == [2]
    assert len(resolved) == before + 1  # only the rules' own new_state of the one game
