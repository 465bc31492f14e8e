"""The organiser's commands and the ladder file: what `arena ladder init` writes loads
and documents every key; each mistake is one line naming the key or the fix with exit
code 2 (never a traceback); tokens are shown once and stored hashed; every action is
logged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.ladder.config import LadderFileError, load_ladder
from tests.helpers.cli import run_cli_cleanly


def _init(tmp_path: Path, *games: str) -> Path:
    folder = tmp_path / "ladder"
    args = ["ladder", "init", str(folder)] + [arg for game in games for arg in ("--game", game)]
    result = run_cli_cleanly(*args)
    assert result.exit_code == 0, result.output
    return folder


def test_init_writes_a_documented_file_that_loads_with_a_table_per_game(tmp_path: Path) -> None:
    folder = _init(tmp_path, "btt", "the-tree")
    text = (folder / "ladder.toml").read_text()
    for key in ("concurrency", "[time]", "[limits]", "min_games", "per_hour", "[build]", "public", "keep_games",
                "[languages.c]"):
        assert key in text
    ladder = load_ladder(folder)
    assert [t.key for t in ladder.tables] == ["btt-2", "the-tree-2"]
    assert set(ladder.languages) == {"python", "c", "javascript"}
    again = run_cli_cleanly("ladder", "init", str(folder))
    assert again.exit_code == 2 and "already holds a ladder" in again.output


@pytest.mark.parametrize(("change", "said"), [
    (('min_games = 20', 'min_games = "many"'), "matchmaking.min_games: expected `int`"),
    (('[build]', '[build]\ncolour = "red"'), "build: object contains unknown field `colour`"),
    (('game = "btt"', 'game = "chess"'), "tables[0].game: unknown game 'chess'"),
    (('seats = 2', 'seats = 9'), "tables[0]:"),
    (('# concurrency = 2 ', 'concurrency = 0 '), "concurrency: 0 is out of range"),
    (('[languages.python]\nrun = "python3 bot.py"', '[languages.python]\nrun = "  "'), "languages.python.run: empty"),
])
def test_a_mistake_in_the_ladder_file_names_its_key(tmp_path: Path, change: tuple[str, str], said: str) -> None:
    folder = _init(tmp_path, "btt")
    path = folder / "ladder.toml"
    text = path.read_text()
    assert change[0] in text
    path.write_text(text.replace(change[0], change[1], 1))
    with pytest.raises(LadderFileError) as caught:
        load_ladder(folder)
    assert said in str(caught.value)
    result = run_cli_cleanly("ladder", "run", str(folder), "--port", "0")
    assert result.exit_code == 2 and said in " ".join(result.output.split())


def test_a_folder_without_a_ladder_says_how_to_make_one(tmp_path: Path) -> None:
    result = run_cli_cleanly("ladder", "run", str(tmp_path))
    assert result.exit_code == 2 and "arena ladder init" in result.output


def test_entrants_tokens_and_the_log_of_actions(tmp_path: Path) -> None:
    folder = _init(tmp_path, "btt")
    added = run_cli_cleanly("ladder", "entrant", "add", str(folder), "ann")
    assert added.exit_code == 0
    token = added.output.strip().splitlines()[-1]
    db = sqlite3.connect(folder / "ladder.sqlite")
    (stored,) = db.execute("SELECT token_hash FROM entrants WHERE name = 'ann'").fetchone()
    db.close()
    assert stored.startswith("$argon2") and token not in stored
    twice = run_cli_cleanly("ladder", "entrant", "add", str(folder), "ann")
    assert twice.exit_code == 2 and "token reset" in twice.output
    assert run_cli_cleanly("ladder", "entrant", "add", str(folder), "../x").exit_code == 2
    reset = run_cli_cleanly("ladder", "token", "reset", str(folder), "ann")
    assert reset.exit_code == 0 and reset.output.strip().splitlines()[-1] != token
    assert run_cli_cleanly("ladder", "token", "reset", str(folder), "bob").exit_code == 2
    unknown = run_cli_cleanly("ladder", "pause", str(folder), "nobot")
    assert unknown.exit_code == 2 and "no bot named 'nobot'" in unknown.output
    assert run_cli_cleanly("ladder", "entrant", "remove", str(folder), "ann").exit_code == 0
    listed = run_cli_cleanly("ladder", "entrant", "list", str(folder))
    assert "ann (removed)" in listed.output
    actions = run_cli_cleanly("ladder", "actions", str(folder)).output
    assert "entrant add ann" in actions and "token reset ann" in actions and "entrant remove ann" in actions


def test_every_ladder_command_has_help() -> None:
    for command in (["init"], ["run"], ["entrant", "add"], ["entrant", "remove"], ["entrant", "list"],
                    ["token", "reset"], ["pause"], ["resume"], ["retire"], ["disqualify"], ["actions"], ["submit"]):
        result = run_cli_cleanly("ladder", *command, "--help")
        assert result.exit_code == 0 and "Usage" in result.output, command


def test_submit_to_no_ladder_is_one_line_with_the_fix(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print()\n")
    result = run_cli_cleanly("ladder", "submit", "http://127.0.0.1:9/", str(bot), "--token", "1.x")
    assert result.exit_code == 2 and "cannot reach" in result.output
    bad = run_cli_cleanly("ladder", "submit", "ladder.example", str(bot), "--token", "1.x")
    assert bad.exit_code == 2 and "http://" in bad.output
