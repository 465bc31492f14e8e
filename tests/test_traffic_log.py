"""--log-protocol: every line each way, per bot, with a timestamp, the game and the ply,
in the log folder; a league's `log_protocol` key does the same for its tables."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers.cli import run_cli

ENTRY = re.compile(r"^\d{4}-\d\d-\d\dT[\d:.]+ \+[\d.]+ms (handshake|game \d+ ply \d+) ([<>]) (.*)$")


def entries(path: Path) -> list[tuple[str, str, str]]:
    found = []
    for line in path.read_text().splitlines():
        match = ENTRY.match(line)
        assert match is not None, line
        found.append((match.group(1), match.group(2), match.group(3)))
    return found


def test_play_logs_every_line_each_way_with_game_and_ply(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    result = run_cli("play", "btt", "random", "greedy", "--games", "2", "--seed", "1", "--log-protocol",
                     "--log-dir", str(logs), "-q")
    assert result.exit_code == 0, result.output
    lines = entries(logs / "0-random.protocol.log")
    assert lines[0][:2] == ("handshake", ">") and '"type":"hello"' in lines[0][2]
    assert lines[1][:2] == ("handshake", "<") and '"ready"' in lines[1][2]
    games = {where.split(" ply")[0] for where, _, _ in lines if where != "handshake"}
    assert games == {"game 1", "game 2"}
    requests = [(where, text) for where, way, text in lines if way == ">" and '"type":"request"' in text]
    answers = [where for where, way, _ in lines if way == "<" and where != "handshake"]
    assert [where for where, _ in requests] == answers  # each answer logged with its request's game and ply
    for where, text in requests:
        assert f'"ply":{where.rsplit(" ", 1)[1]},' in text


def test_a_league_key_logs_the_tables(tmp_path: Path) -> None:
    (tmp_path / "l.toml").write_text('name = "x"\ngame = "btt"\nlog_protocol = true\n'
                                     '[[bots]]\nname = "a"\ncommand = "random"\n'
                                     '[[bots]]\nname = "b"\ncommand = "random"\n')
    result = run_cli("league", "run", str(tmp_path / "l.toml"), "-q")
    assert result.exit_code == 0, result.output
    logs = sorted((tmp_path / "l" / "logs").rglob("*.protocol.log"))
    assert len(logs) == 2 and all(entries(path) for path in logs)
