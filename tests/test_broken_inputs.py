"""A careless organiser's files, folders and numbers: each gets one message that names
the problem and the fix, the right exit code, no traceback, and nothing stored is
changed or lost."""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import Result

from arena import records
from arena.league import store as store_module
from arena.league.config import load_league
from arena.league.store import LeagueStore
from arena.records.files import read_record_file
from arena.records.record import GameRecord, Ply
from tests.helpers.cli import run_cli, run_cli_cleanly

LEAGUE = """
name = "files"
game = "btt"
seed = 3
concurrency = 1
games_per_pairing = 2
bots = [
  {{ name = "a", command = "random" }},
  {{ name = "b", command = "random" }},
  {{ name = "c", command = "greedy" }},
]
{extra}
[time]
per_move = "2s"
"""


def cli(*args: str) -> Result:
    """A command that must end cleanly and print no traceback, whatever the broken input."""
    result = run_cli_cleanly(*args)
    assert "Traceback (most recent call last)" not in result.output
    return result


def one_line(result: Result) -> str:
    return " ".join(result.output.split())


def league_file(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "files.toml"
    path.write_text(LEAGUE.format(extra=extra))
    return path


def finished_league(tmp_path: Path) -> Path:
    path = league_file(tmp_path)
    assert cli("league", "run", str(path), "-q").exit_code == 0
    return path


def digest(*paths: Path) -> list[str]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else "absent" for p in paths]


# ---- the league's database ------------------------------------------------------------------


def test_an_empty_database_stops_the_league_and_nothing_is_touched(tmp_path: Path) -> None:
    path = finished_league(tmp_path)
    league = load_league(path)
    league.database.write_bytes(b"")
    before = digest(league.database, league.records)
    result = cli("league", "run", str(path))
    assert result.exit_code == 2
    assert "is empty (0 bytes), not a league database; it was left as it is" in one_line(result)
    assert digest(league.database, league.records) == before
    assert cli("league", "table", str(path)).exit_code == 2


def test_a_database_page_of_garbage_stops_the_league(tmp_path: Path) -> None:
    path = finished_league(tmp_path)
    league = load_league(path)
    data = bytearray(league.database.read_bytes())
    page = 4096
    assert len(data) >= 3 * page
    data[page:2 * page] = os.urandom(page)
    league.database.write_bytes(bytes(data))
    before = digest(league.database, league.records)
    result = cli("league", "run", str(path))
    assert result.exit_code == 2
    text = one_line(result)
    assert "is damaged" in text and "it was left as it is" in text and "Restore" in text
    assert digest(league.database, league.records) == before


def test_a_foreign_database_stops_the_league(tmp_path: Path) -> None:
    path = league_file(tmp_path)
    league = load_league(path)
    league.output.mkdir()
    foreign = sqlite3.connect(league.database)
    foreign.execute("CREATE TABLE customers (id INTEGER, name TEXT)")
    foreign.execute("INSERT INTO customers VALUES (1, 'Ada')")
    foreign.commit()
    foreign.close()
    before = digest(league.database)
    result = cli("league", "run", str(path))
    assert result.exit_code == 2
    assert "is an SQLite database but not a league's (its tables: customers)" in one_line(result)
    assert digest(league.database) == before


def test_records_without_their_database_are_never_overwritten(tmp_path: Path) -> None:
    path = finished_league(tmp_path)
    league = load_league(path)
    league.database.unlink()
    before = digest(league.records)
    result = cli("league", "run", str(path))
    assert result.exit_code == 2
    assert "holds games but" in one_line(result) and "does not exist" in one_line(result)
    assert digest(league.records) == before and not league.database.exists()


def test_a_full_disk_stops_the_league_cleanly_and_it_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = league_file(tmp_path)
    opened = LeagueStore.open

    def tight(*args: object, **kwargs: object) -> LeagueStore:
        store = opened(*args, **kwargs)  # type: ignore[arg-type]
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages + 1}")  # room for about two records
        return store

    monkeypatch.setattr(store_module.LeagueStore, "open", tight)
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 2
    assert "is full: every game finished so far is stored" in one_line(result)
    league = load_league(path)
    stored = read_record_file(league.records)
    assert 0 < len(stored) < 6
    monkeypatch.setattr(store_module.LeagueStore, "open", opened)
    assert cli("league", "run", str(path), "-q").exit_code == 0
    read_back = read_record_file(league.records)
    assert len(read_back) == 6 and [records.write(r) for r in read_back[: len(stored)]] == [
        records.write(r) for r in stored]
    assert cli("verify", str(league.records)).exit_code == 0


def test_a_full_disk_for_the_records_file_stops_the_league_and_it_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.records.files import append as original

    appended: list[int] = []

    def third_fails(path: Path, record: GameRecord) -> None:
        if len(appended) == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        appended.append(1)
        original(path, record)

    monkeypatch.setattr("arena.league.runner.append", third_fails)
    path = league_file(tmp_path)
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 2
    assert "No space left on device); every finished game is stored in" in one_line(result)
    league = load_league(path)
    assert len(read_record_file(league.records)) == 2
    monkeypatch.setattr("arena.league.runner.append", original)
    assert cli("league", "run", str(path), "-q").exit_code == 0
    assert len(read_record_file(league.records)) == 6
    assert cli("verify", str(league.records)).exit_code == 0


def test_a_torn_last_game_with_the_right_count_is_rebuilt(tmp_path: Path) -> None:
    path = finished_league(tmp_path)
    league = load_league(path)
    text = league.records.read_text()
    lines = text.rstrip("\n").split("\n")
    league.records.write_text("\n".join(lines[:-1]) + "\n")  # the last game's last line lost: still 6 games
    assert len(read_record_file(league.records)) == 6
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 0 and "warning" not in result.output
    assert league.records.read_text() == text
    assert cli("verify", str(league.records)).exit_code == 0


def test_a_records_file_holding_something_else_is_kept_aside(tmp_path: Path) -> None:
    path = finished_league(tmp_path)
    league = load_league(path)
    text = league.records.read_text()
    league.records.write_text(text + "\n[Event \"mine\"]\n[Game \"btt\"]\n[Seats \"2\"]\n\n1. Nc3\n")
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 0
    assert "held games the database does not; it was kept as league.pgn.orig-" in one_line(result)
    kept = list(league.output.glob("league.pgn.orig-*"))
    assert len(kept) == 1 and kept[0].read_text().endswith('1. Nc3\n')
    assert league.records.read_text() == text


def test_the_output_folder_being_a_file_is_a_clear_error(tmp_path: Path) -> None:
    path = league_file(tmp_path, 'output = "taken"')
    (tmp_path / "taken").write_text("mine")
    result = cli("league", "run", str(path))
    assert result.exit_code == 2 and "is a file, not a folder; set another output folder" in one_line(result)
    assert (tmp_path / "taken").read_text() == "mine"


# ---- record files for play, verify and replay ------------------------------------------------


@pytest.mark.parametrize("target", ["missing/game.pgn", "folder"])
def test_out_in_a_missing_folder_or_naming_a_folder_is_refused_before_any_game(tmp_path: Path, target: str) -> None:
    (tmp_path / "folder").mkdir()
    logs = tmp_path / "logs"
    result = cli("play", "btt", "random", "random", "--out", str(tmp_path / target), "--log-dir", str(logs))
    assert result.exit_code == 2
    text = one_line(result)
    assert ("does not exist; create it" in text) if target.startswith("missing") else ("is a folder" in text)
    assert not logs.exists(), "no game may start before --out is checked"


def test_out_naming_a_file_that_holds_no_records_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    result = cli("play", "btt", "random", "random", "--out", str(notes))
    assert result.exit_code == 2 and "does not hold game records" in one_line(result)
    assert notes.read_text() == "my notes\n"


def test_a_log_dir_that_cannot_be_created_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    result = cli("play", "btt", "random", "random", "--log-dir", str(tmp_path / "file" / "logs"))
    assert result.exit_code == 2 and "--log-dir" in result.output and "cannot be created" in one_line(result)


@pytest.mark.parametrize("command", ["verify", "replay"])
def test_a_folder_given_as_a_record_is_a_clear_error(tmp_path: Path, command: str) -> None:
    result = cli(command, str(tmp_path))
    assert result.exit_code == 2 and "is a folder; give a record file" in one_line(result)


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_verify_and_replay_of_a_file_without_games_fail(tmp_path: Path, content: str) -> None:
    empty = tmp_path / "empty.pgn"
    empty.write_text(content)
    result = cli("verify", str(empty))
    assert result.exit_code == 1 and "no game in the file" in one_line(result)
    assert "game(s) verified" not in result.output
    result = cli("replay", str(empty))
    assert result.exit_code == 1 and "holds no game" in one_line(result)


def test_replay_of_a_cut_short_record_says_so(tmp_path: Path) -> None:
    game = tmp_path / "game.pgn"
    assert cli("play", "btt", "random", "random", "--seed", "4", "--out", str(game), "-q").exit_code == 0
    record = read_record_file(game)[0]
    record.plies = record.plies[:10]
    record.tags["Plies"] = "10"
    game.write_text(records.write(record))
    result = cli("replay", str(game))
    assert result.exit_code == 1
    assert "ends after ply 10 before the game is over" in one_line(result) and "cut short" in result.output
    assert cli("verify", str(game)).exit_code == 1


def test_a_fifty_megabyte_line_is_rejected_in_bounded_memory(tmp_path: Path) -> None:
    big = tmp_path / "big.pgn"
    with big.open("wb") as handle:
        handle.write(b'[Game "btt"]\n[Seats "2"]\n\n1. ')
        chunk = b"Nc3 " * (1 << 18)
        for _ in range(50):
            handle.write(chunk)
    # VmHWM, this program's own peak: ru_maxrss would keep the peak of the pytest worker
    # it was forked from (Linux keeps it across exec), which grows with the tests before.
    probe = ("import sys\nfrom arena.cli import main\nsys.argv = ['arena', 'verify', sys.argv[1]]\n"
             "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
             "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
             "print('RESULT', code, hwm)")
    done = subprocess.run([sys.executable, "-c", probe, str(big)], capture_output=True, text=True, timeout=120)
    code, rss_kib = done.stdout.split("RESULT")[1].split()
    assert code == "1" and "line longer than 1048576 characters" in " ".join(done.stderr.split())
    assert int(rss_kib) < 250 * 1024, f"{int(rss_kib) // 1024} MiB to reject a 50 MB line"


# ---- numbers and sizes ---------------------------------------------------------------------


@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("seed", "9223372036854775808", "seed: a huge number is out of range; give 0 to 9007199254740991"),
    ("seed", "-1", "seed: -1 is out of range"),
    ("limits", "{ max_processes = 0 }", "limits.max_processes: 0 is out of range; give 1 to"),
    ("limits", "{ max_processes = -1 }", "limits.max_processes: -1 is out of range"),
    ("limits", "{ memory_mb = 99999999999999999 }", "limits.memory_mb: a huge number is out of range"),
    ("games_per_pairing", "100000000000", "games_per_pairing: 100000000000 is out of range; give 2 to 10000000"),
    ("concurrency", "0", "concurrency: 0 is out of range; give 1 to 1024"),
    ("schedule", '"roundrobin"', 'schedule: \'roundrobin\' is not a schedule; write "round-robin" or "gauntlet"'),
    ("schedule", '"gauntlet"', 'gauntlet: missing; with schedule = "gauntlet" name the bot that faces the field'),
])
def test_numbers_and_choices_out_of_range_in_a_league_file(tmp_path: Path, key: str, value: str,
                                                           fragment: str) -> None:
    lines = [line for line in LEAGUE.format(extra="").splitlines() if not line.startswith(f"{key} =")]
    lines.insert(1, f"{key} = {value}")
    path = tmp_path / "files.toml"
    path.write_text("\n".join(lines))
    result = cli("league", "run", str(path))
    assert result.exit_code == 2, result.output
    assert fragment in one_line(result)
    assert not (tmp_path / "files").exists()


def test_a_time_of_1e308_is_refused_in_the_file_and_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "files.toml"
    path.write_text(LEAGUE.format(extra="").replace('per_move = "2s"', "per_move = 1e308"))
    result = cli("league", "run", str(path))
    assert result.exit_code == 2 and "is more than a week" in one_line(result)
    for option in ("--time-per-move", "--clock"):
        result = cli("play", "btt", "random", "random", option, "1e308")
        assert result.exit_code == 2 and "is more than a week (604800 s)" in one_line(result)
    result = cli("play", "btt", "random", "random", "--time-per-move", "nan")
    assert result.exit_code == 2 and "is not a time" in result.output


@pytest.mark.parametrize(("args", "fragment"), [
    (["--seed", str(1 << 63)], "--seed"),
    (["--seed", "-1"], "--seed"),
    (["--max-processes", "0"], "--max-processes"),
    (["--max-processes", "-1"], "--max-processes"),
    (["--memory-mb", "1"], "--memory-mb"),
])
def test_numbers_out_of_range_on_the_command_line(args: list[str], fragment: str) -> None:
    result = cli("play", "btt", "random", "random", *args)
    assert result.exit_code == 2 and f"error: {fragment}: Input should be" in one_line(result)


def test_a_long_option_value_is_quoted_as_a_short_excerpt() -> None:
    value = "x" * 100_000
    for args in (["legal", "btt", "--option", f"board={value}"], ["play", "btt", "random", "random",
                                                                   "--time-per-move", value]):
        result = cli(*args)
        assert result.exit_code == 2 and "(100000 characters)" in one_line(result)
        assert len(result.output) < 500


# ---- exit codes and messages ------------------------------------------------------------------


def test_a_bot_whose_script_is_missing_or_not_executable_is_refused_before_play(tmp_path: Path) -> None:
    result = cli("play", "btt", "random", f"python3 {tmp_path / 'missing.py'}")
    assert result.exit_code == 2 and "missing.py' does not exist" in one_line(result)
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    result = cli("play", "btt", "random", str(script))
    assert result.exit_code == 2 and "is not executable: run `chmod +x" in one_line(result)
    league = tmp_path / "bad.toml"
    league.write_text(LEAGUE.format(extra="").replace('command = "greedy"', f'command = "{script}"'))
    result = cli("league", "run", str(league))
    assert result.exit_code == 2 and "bots[2].command" in result.output and "not executable" in result.output


def test_a_bot_that_never_starts_makes_play_exit_2(tmp_path: Path) -> None:
    script = tmp_path / "bot" / "dies.sh"  # a folder of its own: the logs may not lie in a bot's folder
    script.parent.mkdir()
    script.write_text("#!/bin/sh\necho 'cannot load my weights' >&2\nexit 3\n")
    script.chmod(0o755)
    result = cli("play", "btt", "random", str(script), "--log-dir", str(tmp_path / "logs"))
    assert result.exit_code == 2
    text = one_line(result)
    assert "dies.sh never started" in text and "exit code 3" in text and "cannot load my weights" in text


def test_match_refuses_an_odd_number_of_games_and_unknown_sprt_settings() -> None:
    result = cli("match", "random", "greedy", "--game", "btt", "--games", "3")
    assert result.exit_code == 2 and "give an even number such as 4" in one_line(result)
    result = cli("match", "random", "greedy", "--game", "btt", "--sprt", "foo=1")
    assert result.exit_code == 2 and "'foo=1' is not an SPRT setting" in one_line(result)


def test_a_bot_that_closes_its_stdin_is_reported_as_such(tmp_path: Path) -> None:
    out = tmp_path / "g.pgn"
    result = cli("play", "btt", "random", "zoo/close_stdin", "--out", str(out), "--log-dir", str(tmp_path / "l"),
                 "--time-per-move", "2s")
    assert result.exit_code == 0, result.output
    detail = read_record_file(out)[0].tags["TerminationDetail"]
    assert "closed-pipe" in detail and "closed its stdin (stopped reading its input)" in detail


def test_a_clock_run_out_within_the_grace_is_a_time_out_without_a_negative_limit(tmp_path: Path) -> None:
    out = tmp_path / "g.pgn"
    result = run_cli("play", "btt", "random", "zoo/slow", "--clock", "0.5+0", "--grace", "3s",
                     "--out", str(out), "--log-dir", str(tmp_path / "l"), env={"ZOO_PLY": "2", "ZOO_SECONDS": "1.0"})
    assert result.exit_code == 0, result.output
    detail = read_record_file(out)[0].tags["TerminationDetail"]
    assert "time-out" in detail and "its game clock had run out before this decision" in detail
    assert "-" not in detail.split("time-out", 1)[1].split("ms")[0]


def test_play_without_a_log_dir_leaves_no_folder_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert cli("play", "btt", "random", "random", "-q").exit_code == 0
    assert list(tmp_path.glob("arena-logs-*")) == []
    result = cli("play", "btt", "random", "zoo/crash", "-q")
    kept = list(tmp_path.glob("arena-logs-*"))
    assert result.exit_code == 0 and len(kept) == 1 and f"bot logs (stderr): {kept[0]}" in one_line(result)


# ---- an error of the arena inside one game ------------------------------------------------------


def test_a_game_the_arena_fails_is_void_retried_then_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.referee import referee

    original = referee.Referee._record

    def fail_round_2_1(self: referee.Referee, ply: Ply) -> None:
        if self.setup.round == "2.1" and len(self.plies) == 3:
            raise RuntimeError("a bug of ours")
        original(self, ply)

    monkeypatch.setattr(referee.Referee, "_record", fail_round_2_1)
    path = league_file(tmp_path, "infrastructure_retries = 1")
    league = load_league(path)
    for attempt in (1, 2):
        result = cli("league", "run", str(path), "-q")
        assert result.exit_code == 1
        assert "1 game(s) were stopped by an error of the arena (rounds 2.1)" in one_line(result)
        assert len(read_record_file(league.records)) == 5
        log = (league.logs / "arena-errors.log").read_text()
        assert log.count("RuntimeError: a bug of ours") == attempt
    result = cli("league", "run", str(path), "-q")
    assert result.exit_code == 1 and "failed with an error of the arena 2 times (rounds 2.1)" in one_line(result)
    table = cli("league", "table", str(path), "-f", "json")
    assert '"games": 5' in table.output
    monkeypatch.setattr(referee.Referee, "_record", original)
    assert cli("verify", str(league.records)).exit_code == 0


def test_play_reports_a_void_game_and_keeps_it_out_of_the_records(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.referee import referee

    original = referee.Referee._record

    def fail_first_game(self: referee.Referee, ply: Ply) -> None:
        if self.setup.match_game == 0 and len(self.plies) == 3:
            raise RuntimeError("a bug of ours")
        original(self, ply)

    monkeypatch.setattr(referee.Referee, "_record", fail_first_game)
    out = tmp_path / "g.pgn"
    result = cli("play", "btt", "random", "random", "--games", "2", "--out", str(out), "--log-dir",
                 str(tmp_path / "logs"))
    assert result.exit_code == 1 and "1 game(s) were stopped by an error of the arena" in one_line(result)
    assert "game 1: void [infrastructure-error]" in one_line(result) and "2 game(s), 1 void" not in result.output
    assert len(read_record_file(out)) == 1
    assert "RuntimeError: a bug of ours" in (tmp_path / "logs" / "arena-errors.log").read_text()
