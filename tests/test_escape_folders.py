"""The escape suite, what a bot's folder shows: its program's folder, never the folder the
arena was started in; none of the arena's files (an earlier run's records, protocol
logs, live.json, the league's database) even inside its own folder; no output of this
run inside it (refused before the first game, for a match and a league); files its
command names outside it only when allowed read-only (--ro, ro_paths); and a bot that
fails to start because a path was hidden is told which and how to allow it.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from arena.process import botfolder, folder_checks
from arena.process.botnames import resolve_bot
from arena.process.spec import BotSpec
from tests.helpers.cli import run_cli
from tests.helpers.escape import assert_game_sound, attack_report, honest, play, skip_without_sandbox

ESCAPE = Path(resolve_bot("zoo/escape", "btt").command[-1])
EARLIER_RUN = {"games.pgn": '[Event "earlier"]\n', "3-rival.protocol.log": "deal 00,01,02\n",
               "live.json": '{"deal": "00,01"}', "league.sqlite": "db", "league.sqlite-shm": "shm",
               "0-rival.log": "my hand is 00,01\n"}

skip_without_sandbox()


def cheat_folder(tmp_path: Path, name: str = "cheat") -> Path:
    """A folder holding a copy of the escape bot."""
    folder = tmp_path / name
    folder.mkdir(parents=True)
    shutil.copy(ESCAPE, folder / "escape.py")
    return folder


def leave_earlier_run(folder: Path) -> None:
    for name, text in EARLIER_RUN.items():
        (folder / name).write_text(text)


def play_cli(*args: str) -> tuple[int, str]:
    result = run_cli("play", "btt", *args, env={"COLUMNS": "300"})
    return result.exit_code, " ".join(result.output.split())


def test_a_command_bot_never_sees_the_folder_the_arena_was_started_in(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena play ... "python3 ../bots/cheat/escape.py"` from a folder holding an earlier
    run's records and protocol log: the bot's folder is its script's, not this one."""
    here = tmp_path / "here"
    here.mkdir()
    leave_earlier_run(here)
    cheat_folder(tmp_path / "bots")
    monkeypatch.chdir(here)
    logs = tmp_path / "logs"
    command = f"env ZOO_ATTACK=read ZOO_TARGET={here / 'games.pgn'} ZOO_TARGET2={here / '3-rival.protocol.log'} " \
              f"{sys.executable} ../bots/cheat/escape.py"
    code, output = play_cli("random", command, "--log-dir", str(logs))
    assert code == 0, output
    assert attack_report(logs, "read") == ["read 0 failed: FileNotFoundError; read 1 failed: FileNotFoundError"]


@pytest.mark.parametrize("copied", [True, False])
def test_an_earlier_runs_files_in_a_bots_own_folder_are_never_shown(tmp_path: Path, copied: bool,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Records, protocol and stderr logs, live.json and a league's database left in the
    bot's own folder: left out of its private copy, or, for a folder too large to copy
    (shown as it is), each masked (/dev/null over it, which it may not open)."""
    folder = cheat_folder(tmp_path)
    leave_earlier_run(folder)
    if not copied:
        monkeypatch.setattr(botfolder, "COPY_MAX_BYTES", 1)
    cheat = BotSpec("cheat", [sys.executable, str(folder / "escape.py")], str(folder),
                    {"ZOO_ATTACK": "read", "ZOO_TARGET": str(folder / "live.json"),
                     "ZOO_TARGET2": str(folder / "3-rival.protocol.log")})
    result = play([cheat, honest()], tmp_path / "logs")
    expected = "read 0 failed: FileNotFoundError; read 1 failed: FileNotFoundError" if copied else \
        "read 0 failed: PermissionError; read 1 failed: PermissionError"
    assert attack_report(tmp_path / "logs", "read") == [expected]
    assert_game_sound(result)


def test_a_file_written_into_its_folder_after_its_start_never_appears(tmp_path: Path) -> None:
    """Its folder is a copy made when its process starts: a file appearing in the folder
    afterwards (as a league's live.json would) is not in it. The bot reads at its
    first request; the file was written before that, once its process had started."""
    folder = cheat_folder(tmp_path)
    cheat = BotSpec("cheat", [sys.executable, str(folder / "escape.py")], str(folder),
                    {"ZOO_ATTACK": "read", "ZOO_TARGET": str(folder / "later.txt")})
    from arena.process import bot_process as process

    real = process.BotProcess.attach

    def attach_then_write(self: process.BotProcess, stdin: int, stdout: int) -> None:
        real(self, stdin, stdout)
        (folder / "later.txt").write_text("written once the bot had started")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(process.BotProcess, "attach", attach_then_write)
        result = play([cheat, honest()], tmp_path / "logs")
    assert (folder / "later.txt").exists()
    assert attack_report(tmp_path / "logs", "read") == ["read 0 failed: FileNotFoundError"]
    assert_game_sound(result)


def test_output_inside_a_bots_folder_is_refused_before_the_first_game(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    folder = cheat_folder(tmp_path)
    monkeypatch.chdir(folder)
    command = f"{sys.executable} escape.py"
    for option, path in (("--out", folder / "games.pgn"), ("--log-dir", folder)):
        code, output = play_cli(command, "random", option, str(path))
        assert code == 2, output
        assert "lies in the folder of bot" in output and "Write the arena's output outside the bot's folder" in output
    assert not (folder / "games.pgn").exists()  # refused before anything was written
    code, output = play_cli(command, "random", "--out", str(tmp_path / "games.pgn"))  # outside: plays
    assert code == 0, output


def test_a_league_whose_output_holds_a_bots_folder_is_refused(tmp_path: Path) -> None:
    """`output = "."` beside a bot whose folder is the league file's: refused, exit 2,
    nothing played."""
    folder = cheat_folder(tmp_path)
    league = folder / "league.toml"
    league.write_text(f'name = "here"\ngame = "btt"\noutput = "."\ngames_per_pairing = 2\n[[bots]]\nname = "mine"\n'
                      f'command = ["{sys.executable}", "escape.py"]\ncwd = "."\n[[bots]]\nname = "rival"\n'
                      'command = "random"\n')
    result = run_cli("league", "run", str(league), "-q", env={"COLUMNS": "300"})
    text = " ".join(result.output.split())
    assert result.exit_code == 2, text
    assert "lies in the folder of bot mine" in text
    assert not (folder / "league.pgn").exists() or (folder / "league.pgn").read_text() == ""


def test_a_file_argument_outside_the_bots_folder_is_refused_unless_allowed(tmp_path: Path) -> None:
    """`python3 escape.py /other/league.pgn` would show nothing of /other: refused with
    the fix; with --ro the file alone is shown, not its folder."""
    folder = cheat_folder(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "league.pgn").write_text('[Event "other"]\n')
    (other / "secret.key").write_text("another league's key")
    command = (f"env ZOO_ATTACK=read ZOO_TARGET={other / 'league.pgn'} ZOO_TARGET2={other / 'secret.key'} "
               f"{sys.executable} {folder / 'escape.py'} {other / 'league.pgn'}")
    code, output = play_cli(command, "random")
    assert code == 2, output
    assert f"--ro {other / 'league.pgn'}" in output and "Move the file into the bot's folder" in output
    checked = run_cli("check", command, "--game", "btt", "--quick", env={"COLUMNS": "300"})
    assert checked.exit_code == 2 and f"--ro {other / 'league.pgn'}" in " ".join(checked.output.split())
    logs = tmp_path / "logs"
    code, output = play_cli(command, "random", "--ro", str(other / "league.pgn"), "--log-dir", str(logs))
    assert code == 0, output
    assert attack_report(logs, "read") == ["read 0 succeeded: 16 bytes; read 1 failed: FileNotFoundError"]


FAILING_BOT = """import sys
open(sys.argv[1] if len(sys.argv) > 1 else {data!r}).read()
"""


def test_a_bot_failing_on_a_hidden_path_is_told_which_and_how_to_allow_it(tmp_path: Path) -> None:
    data = tmp_path / "data" / "book.bin"
    data.parent.mkdir()
    data.write_text("an opening book")
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "bot.py").write_text(FAILING_BOT.format(data=str(data)))
    command = f"{sys.executable} {folder / 'bot.py'}"
    code, output = play_cli(command, "random")
    assert code == 2, output
    assert "never started" in output and f"{data} exists on this machine but the bot's sandbox does not show it" \
        in output and f"--ro {data}" in output
    code, output = play_cli(command, "random", "--ro", str(data))
    assert code == 2 and "--ro" not in output.split("never started")[1], output  # shown now: no such hint
    checked = run_cli("check", command, "--game", "btt", "--quick", "--json")
    assert checked.exit_code == 1
    handshake = next(c for c in json.loads(checked.stdout)["checks"] if c["name"] == "handshake")
    assert f"--ro {data}" in handshake["detail"]


def test_a_relative_path_out_of_the_bot_folder_gets_the_same_hint(tmp_path: Path) -> None:
    data = tmp_path / "data" / "weights.txt"
    data.parent.mkdir()
    data.write_text("0.5 0.25")
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "bot.py").write_text(FAILING_BOT.format(data="../data/weights.txt"))
    code, output = play_cli(f"{sys.executable} {folder / 'bot.py'}", "random")
    assert code == 2, output
    text = " ".join(output.split())
    assert "never started" in text and f"{data} exists on this machine but the bot's sandbox does not show it" \
        in text and f"--ro {data}" in text


def test_the_private_copy_keeps_no_set_user_id_bit(tmp_path: Path) -> None:
    """The arena copies a bot's folder as its own user: root's copy of a bot's
    set-user-ID program would be a set-user-ID root program on the host."""
    from arena.process.botfolder import private_copy

    folder = tmp_path / "bot"
    folder.mkdir()
    program = folder / "run"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o6755)
    copy = private_copy(folder, tmp_path / "copy", readable_by_all=True)
    assert copy is not None
    mode = (copy / "run").stat().st_mode
    assert mode & 0o7000 == 0 and mode & 0o755 == 0o755, oct(mode)


def uncopied(folder: Path, monkeypatch: pytest.MonkeyPatch) -> BotSpec:
    """The escape bot in `folder`, which is shown as it is (too large to copy)."""
    monkeypatch.setattr(botfolder, "COPY_MAX_BYTES", 1)
    return BotSpec("cheat", [sys.executable, str(folder / "escape.py")], str(folder),
                   {"ZOO_ATTACK": "read", "ZOO_TARGET": str(folder / "0.log"), "ZOO_TARGET2": str(folder / "x.sock")})


def test_a_link_named_like_the_arenas_output_does_not_void_its_games(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`sh.log -> /bin/sh` in a folder shown as it is: a mask over it made bubblewrap
    fail ("Can't create file"), the arena's error, every game of the bot void. Links are
    not masked (they resolve inside the sandbox, where their targets are masked or
    absent); the game is played and scored."""
    folder = cheat_folder(tmp_path)
    (folder / "sh.log").symlink_to("/bin/sh")
    (folder / "0.log").write_text("an earlier run's log")
    result = play([uncopied(folder, monkeypatch), honest()], tmp_path / "logs")
    assert attack_report(tmp_path / "logs", "read") == [
        "read 0 failed: PermissionError; read 1 failed: FileNotFoundError"]
    assert_game_sound(result)


def test_hundreds_of_long_masked_names_do_not_void_its_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """700 files with long names like the arena's logs: bubblewrap's options go through
    a memory file (`--args`), so no 'Argument list too long'."""
    folder = cheat_folder(tmp_path)
    long = "n" * 240
    for index in range(700):
        (folder / f"{index}{long}.log").write_text("x")
    (folder / "0.log").write_text("an earlier run's log")
    result = play([uncopied(folder, monkeypatch), honest()], tmp_path / "logs")
    assert attack_report(tmp_path / "logs", "read")[0].startswith("read 0 failed: PermissionError")
    assert_game_sound(result)


def test_special_files_of_a_folder_shown_as_it_is_are_hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A socket (here a host process could listen) is masked like the arena's files."""
    import socket

    folder = cheat_folder(tmp_path)
    (folder / "0.log").write_text("x")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(folder / "x.sock"))
        result = play([uncopied(folder, monkeypatch), honest()], tmp_path / "logs")
    assert attack_report(tmp_path / "logs", "read") == [
        "read 0 failed: PermissionError; read 1 failed: PermissionError"]
    assert_game_sound(result)


def test_a_folder_with_too_many_masks_is_the_bots_fault_or_refused(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """More files to hide than MASKS_MAX: `arena play` refuses before the first game
    (exit 2, naming the bot and the fix), so does the library; a folder that grew so
    after that check is the bot's start-up failure, never a void game."""
    folder = cheat_folder(tmp_path)
    monkeypatch.setattr(botfolder, "MASKS_MAX", 20)
    for index in range(21):
        (folder / f"{index}.log").write_text("x")
    spec = uncopied(folder, monkeypatch)
    code, output = play_cli("random", f"{sys.executable} {folder / 'escape.py'}", "--log-dir", str(tmp_path / "l"))
    assert code == 2 and "more than 20 files named like the arena's output" in output, output
    assert "folder of its own" in output and "Traceback" not in output, output
    with pytest.raises(botfolder.BotFolderError, match="bot cheat: .* more than 20 files"):
        play([spec, honest()], tmp_path / "refused")
    monkeypatch.setattr(folder_checks, "check_uncopied", lambda name, folder: None)  # as if it grew after the check
    result = play([spec, honest()], tmp_path / "logs")
    assert_game_sound(result, "startup-failure")
    assert result.outcomes[0].faults[0].seat == 0


def test_an_argument_too_long_to_be_a_file_name_is_just_an_argument(tmp_path: Path) -> None:
    """A bot's argument of 300 letters (a JSON blob, a key) made placing its command
    raise 'File name too long' in the referee."""
    placed = botfolder.place([sys.executable, str(ESCAPE), "x" * 300, "--opt=" + "y" * 300], tmp_path)
    assert placed.folder == ESCAPE.parent and placed.argv[2] == "x" * 300
