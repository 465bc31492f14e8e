"""The library's mistakes are `arena.SetupError`, as docs/library.md promises, also
those a lower layer names in an error of its own (a bot's folder, a time control):
the same message `arena play` prints, raised before any bot starts."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import trio

import arena
from arena.process.botfolder import BotFolderError
from arena.process.folder_checks import check_outputs
from arena.process.sandbox import probe
from arena.session.setup import SetupError, as_setup_error
from arena.timecontrol import TimeControlError, time_control

BOTS = Path(__file__).resolve().parent.parent / "bots"

needs_sandbox = pytest.mark.skipif(not probe().sandbox, reason="no sandbox here: the folder checks are a sandbox's")


def _bot_in_folder(tmp_path: Path) -> tuple[str, Path]:
    """A command bot with a folder of its own, and that folder."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    shutil.copy(BOTS / "random_bot.py", folder / "bot.py")
    return f"{sys.executable} {folder / 'bot.py'}", folder


def _public_name(error: BaseException) -> str:
    return f"{type(error).__module__}.{type(error).__qualname__}"


@needs_sandbox
def test_output_inside_the_bots_folder_is_a_setup_error_with_the_checks_message(tmp_path: Path) -> None:
    bot, folder = _bot_in_folder(tmp_path)
    out = folder / "games.pgn"
    with pytest.raises(BotFolderError) as direct:
        check_outputs("bot", folder, [out])
    with pytest.raises(arena.SetupError) as raised:
        arena.play("btt", [bot, "random"], out=out, time="1s")
    assert str(raised.value) == str(direct.value)
    assert _public_name(raised.value) == "arena.SetupError" and not isinstance(raised.value, BotFolderError)
    assert "Write the arena's output outside the bot's folder" in str(raised.value)
    assert not out.exists()  # refused before anything was played or written


@needs_sandbox
def test_logs_and_a_match_file_inside_the_bots_folder_are_setup_errors(tmp_path: Path) -> None:
    bot, folder = _bot_in_folder(tmp_path)
    with pytest.raises(arena.SetupError, match=r"mybot/logs lies in the folder of bot bot "):
        arena.play("btt", ["random", bot], log_dir=folder / "logs", time="1s")
    with pytest.raises(arena.SetupError, match=r"mybot/m\.pgn lies in the folder of bot bot "):
        arena.match("btt", "random", bot, games=2, out=folder / "m.pgn", time="1s")
    assert sorted(p.name for p in folder.iterdir()) == ["bot.py"]


@needs_sandbox
def test_a_file_outside_the_bots_folder_is_a_setup_error_naming_ro(tmp_path: Path) -> None:
    bot, _ = _bot_in_folder(tmp_path)
    data = tmp_path / "weights.txt"
    data.write_text("1\n")
    with pytest.raises(arena.SetupError, match=r"its command names .*weights\.txt.*--ro "):
        arena.play("btt", [f"{bot} {data}", "random"], time="1s")

    async def twin() -> None:
        await arena.play_async("btt", [f"{bot} {data}", "random"], time="1s")

    with pytest.raises(arena.SetupError, match="its sandbox would not show it"):
        trio.run(twin)


def test_a_time_that_is_not_one_is_a_setup_error() -> None:
    with pytest.raises(TimeControlError) as direct:
        time_control("fast", "time")
    with pytest.raises(arena.SetupError) as raised:
        arena.play("btt", ["random", "random"], time="fast")
    assert str(raised.value) == str(direct.value) == "time: 'fast' is not a time (write e.g. 0.5, 2s or 500ms)"
    with pytest.raises(arena.SetupError, match="must be more than zero"):
        arena.play("btt", ["random", "random"], time=["1s", -1])
    with pytest.raises(arena.SetupError, match="'soon' is not a time"):
        arena.match("btt", "random", "greedy", games=2, time="soon")


def test_the_door_converts_only_setup_mistakes() -> None:
    with pytest.raises(SetupError, match="^outside$"), as_setup_error():
        raise BotFolderError("outside")
    with pytest.raises(RuntimeError), as_setup_error():
        raise RuntimeError("a bug stays a bug")
