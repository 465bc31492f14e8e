"""The bot registry (bots.toml): names used by play, match and league files, with each
bot's folder, environment, own time control and limits; mistakes as messages."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena import games
from arena.league.config import load_league
from arena.league.registry import RegistryError, load_registry
from arena.process.spec import Limits
from arena.records.files import read_record_file
from tests.helpers.cli import run_cli
from tests.helpers.scripts import first_legal_bot

BOT = first_legal_bot("reg", pick='int(os.environ.get("PICK", "0"))')


def write_registry(folder: Path) -> Path:
    engines = folder / "engines" / "first"
    engines.mkdir(parents=True)
    (engines / "bot.py").write_text(BOT)
    path = folder / "bots.toml"
    path.write_text(f"""
[first]
command = ["{sys.executable}", "bot.py"]
cwd = "engines/first"
time_per_move = "3s"
memory_mb = 300

[last]
command = ["{sys.executable}", "bot.py"]
cwd = "engines/first"
env = {{ PICK = "-1" }}

[greedy]
command = "random"
""")
    return path


def test_play_uses_the_registry_in_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_registry(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "g.pgn"
    result = run_cli("play", "btt", "first", "last", "--seed", "2", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    record = read_record_file(out)[0]
    assert record.players == ["first", "last"]  # the registry's names, not the bot's own
    assert record.tags["TimeControl"] == "move=3s / move=5s"
    # Its environment came along: `first` plays the first legal action, `last` (PICK=-1) the last.
    state = games.get("btt").new_state(2, {})
    for ply in record.plies:
        legal = state.legal_actions()
        assert ply.action == (legal[0] if state.current() == 0 else legal[-1])
        state.apply(ply.action)


def test_a_registry_name_wins_over_a_shipped_bot(tmp_path: Path) -> None:
    registry = load_registry(write_registry(tmp_path))
    spec = registry.spec("greedy", "btt", Limits())
    assert spec.name == "greedy" and spec.command[-1].endswith("random_bot.py")
    own = registry.spec("first", "btt", Limits(memory_bytes=2 << 30))
    assert own.limits is not None and own.limits.memory_bytes == 300 << 20
    assert own.time_control is not None and own.time_control.per_move_s == 3.0


def test_match_takes_a_registry_file(tmp_path: Path) -> None:
    path = write_registry(tmp_path)
    result = run_cli("match", "first", "last", "--game", "btt", "--games", "2", "--bots", str(path), "-q")
    assert result.exit_code == 0, result.output
    assert "last vs first" in " ".join(result.output.split())


def test_a_league_uses_registry_names_with_its_own_name_and_time(tmp_path: Path) -> None:
    write_registry(tmp_path)
    (tmp_path / "night.toml").write_text("""
name = "x"
game = "btt"
[[bots]]
name = "one"
command = "first"
time_per_move = "1s"
[[bots]]
name = "two"
command = "last"
env = { EXTRA = "1" }
""")
    league = load_league(tmp_path / "night.toml")
    one, two = league.bots
    assert one.name == "one" and one.time_control is not None and one.time_control.per_move_s == 1.0
    assert one.limits is not None and one.limits.memory_bytes == 300 << 20
    assert two.env == {"PICK": "-1", "EXTRA": "1"} and two.cwd is not None and two.cwd.endswith("first")


@pytest.mark.parametrize(("text", "message"), [
    ("[a]\ncwd = 'x'\n", "command"),
    ("[a]\ncommand = 'random'\ncolour = 'red'\n", "colour"),
    ("[a]\ncommand = 'random'\nmemory_mb = 1\n", "memory_mb: 1 is out of range"),
    ("[a]\ncommand = 'random'\ncwd = 'nowhere'\n", "no such folder"),
    ("[a]\ncommand = 'random'\ntime_per_move = 'soon'\n", "not a time"),
    ("[a\n", "not valid TOML"),
])
def test_mistakes_are_messages_naming_the_bot_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bots.toml"
    path.write_text(text)
    with pytest.raises(RegistryError, match=message):
        load_registry(path).spec("a", "btt", Limits())
    result = run_cli("play", "btt", "a", "random", "--bots", str(path))
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_per_bot_time_controls_on_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "g.pgn"
    result = run_cli("play", "btt", "random", "greedy", "--games", "2", "--time-per-move", "1s:200ms",
                     "--time-basis", "cpu", "--out", str(out), "-q")  # no loaded machine times them out
    assert result.exit_code == 0, result.output
    first, second = read_record_file(out)
    cpu = "basis=cpu backstop=10x+1s"
    assert first.tags["TimeControl"] == f"move=1s {cpu} / move=0.2s {cpu}"
    assert second.tags["TimeControl"] == f"move=0.2s {cpu} / move=1s {cpu}"  # the control follows the bot, not the seat
    wrong = run_cli("play", "btt", "random", "greedy", "--clock", "60+1:30+1:10")
    assert wrong.exit_code == 2 and "3 values for 2 bots" in wrong.output
