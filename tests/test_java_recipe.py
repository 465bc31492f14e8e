"""docs/protocol.md's Java bot plays as the page says: its file, run by the command the
page prints (the JVM's memory flags included), finishes two games of btt normally."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from arena.records import read, verify
from tests.helpers.cli import run_cli

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
JAVA = shutil.which("java")


def java_block() -> str:
    match = re.search(r"<!-- java-bot -->\n```java\n(.*?)```", DOC.read_text(), re.S)
    assert match, "no ```java block after <!-- java-bot --> in docs/protocol.md"
    return match.group(1)


def documented_command() -> list[str]:
    """The bot's command of the page's first `arena play ... Bot.java` line."""
    line = next(line for line in DOC.read_text().splitlines()
                if line.startswith("arena play btt ") and "Bot.java" in line)
    return shlex.split(shlex.split(line)[3])


def test_the_page_runs_the_bot_with_capped_memory() -> None:
    command = documented_command()
    assert command[0] == "java" and command[-1] == "mybot/Bot.java"
    assert {"-Xss512k", "-XX:ReservedCodeCacheSize=32m", "-XX:+UseSerialGC"} <= set(command)
    assert any(re.fullmatch(r"-Xmx\d+m", flag) for flag in command)
    source = java_block()
    assert "public class Bot" in source and "import com." not in source and "import org." not in source


@pytest.mark.skipif(JAVA is None, reason="java is not installed: the Java recipe cannot be run here")
def test_the_java_bot_from_the_docs_plays_two_games(tmp_path: Path) -> None:
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "Bot.java").write_text(java_block())
    command = [*documented_command()[:-1], str(folder / "Bot.java")]
    out = tmp_path / "games.pgn"
    result = run_cli("play", "btt", shlex.join(command), "random", "--games", "2", "--seed", "1",
                     "--memory-mb", "256", "--startup-time", "60s", "--time-per-move", "5s", "--time-basis", "cpu",
                     "--out", str(out), "--log-dir", str(tmp_path / "logs"), "-q")
    assert result.exit_code == 0, result.output
    games = list(read(out))
    assert [g.termination for g in games] == ["normal", "normal"]
    assert all("first-legal-java" in g.players for g in games)
    assert [verify(g) for g in games] == [[], []]
