"""Fuzzing the readers of untrusted input with hypothesis: a bot's lines, record files,
league files and the command line. Each must answer every input with its own typed error or a value,
never another exception. A few hundred examples per target run by default; `pytest -m
slow` runs 20,000 per target."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import records
from arena.league.config import LeagueFileError, load_league
from arena.records.reader import read_text
from arena.records.record import RecordSyntaxError
from arena.records.replay import verify
from protocol.codec import ProtocolError, decode_bot
from protocol.messages import Action, Ready
from tests.helpers.cli import run_cli

FEW = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(max_examples=20_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---- a bot's lines ----------------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=30)
message_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["action", "ready", "request", "x", ""])},
    optional={"action": json_values, "name": json_values, "info": json_values | st.fixed_dictionaries(
        {}, optional={"score": json_values, "depth": json_values, "nodes": json_values, "pv": json_values,
                      "comment": json_values}), "legal": json_values, "extra": json_values})


def nested(depth: int, opener: str) -> bytes:
    closer = "]" if opener == "[" else "}"
    inner = "0" if opener == "[" else '{"a":0}'
    body = (opener if opener == "[" else '{"a":') * depth
    return (body + inner + closer * depth).encode()


def check_bot_line(line: bytes) -> None:
    try:
        message = decode_bot(line)
    except ProtocolError as exc:
        assert len(str(exc)) < 400
        return
    assert isinstance(message, Action | Ready)


# ---- record files -----------------------------------------------------------------------------

GOOD = """[Event "fuzz"]
[Game "btt"]
[Options "board=wedge"]
[Seats "2"]
[Player0 "a"]
[Player1 "b"]
[Ranks "1,2"]
[Termination "normal"]
[Plies "4"]

1. Nc3 {1.0ms} 2. Rd2 3. 1c2>d2 {x} 4. 2d1>c2
"""

record_tokens = st.sampled_from([
    "[", "]", '"', "{", "}", "~", "1.", "2.", "0.", "99999999999.", " ", "\n", "\r\n", "\t", "\\", "\\x41", "\\q",
    '[Game "btt"]', '[Seats "2"]', '[Seats "x"]', '[Ranks "1,2"]', '[Scores "1e999,nan"]', '[Options "a"]',
    '[Plies "-1"]', "Nc3", "Rd2", '"a b"', "{c}", "\ufeff", "\x00", "é",
])
record_like = st.lists(record_tokens | st.text(max_size=6), max_size=60).map("".join)


def check_record_text(text: str) -> None:
    try:
        games = read_text(text)
    except RecordSyntaxError as exc:
        assert exc.line >= 1 and exc.column >= 1 and len(str(exc)) < 400
        return
    for index, game in enumerate(games):
        verify(game, index)
        records.write(game) if game.tags.get("Game") else None


def mutate(text: str, data: st.DataObject) -> str:
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 5))
        text = text[:pos] + data.draw(record_tokens | st.text(max_size=3)) + text[pos + cut:]
    return text


# ---- league files -----------------------------------------------------------------------------


def toml_value(value: object) -> str:
    """A TOML rendering of a JSON-like value (JSON strings are TOML basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    return '""'


toml_scalars = (st.booleans() | st.integers(-(1 << 70), 1 << 70) | st.floats(allow_nan=False, allow_infinity=False)
                | st.text(max_size=12) | st.sampled_from(["btt", "random", "greedy", "zoo/crash", "1s", "0",
                                                         "round-robin", "gauntlet", "x" * 300, "../..", "/"])
                | st.builds(lambda head, n, tail: head + "a" * n + tail,
                            st.sampled_from(["", "./", "python3 ", "/", "bots/"]), st.integers(200, 5000),
                            st.sampled_from(["", ".py", "/", " x.py"])))
toml_values = st.recursive(toml_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=12)
bot_entry = st.fixed_dictionaries({}, optional={"name": toml_values, "command": toml_values, "cwd": toml_values,
                                                "env": toml_values, "extra": toml_values})
league_like = st.fixed_dictionaries({}, optional={
    "name": toml_values, "game": st.sampled_from(["btt", "the-tree", "blox", "roots", "treeblox", "x"]) | toml_values,
    "bots": st.lists(bot_entry, max_size=4) | toml_values, "seats": toml_values, "options": toml_values,
    "games_per_pairing": toml_values, "schedule": toml_values, "gauntlet": toml_values,
    "concurrency": toml_values, "seed": toml_values, "output": toml_values,
    "infrastructure_retries": toml_values, "time": st.dictionaries(
        st.sampled_from(["per_move", "clock", "grace", "startup", "x"]), toml_values, max_size=3),
    "limits": st.dictionaries(st.sampled_from(["memory_mb", "max_processes", "x"]), toml_values, max_size=2)})


def check_league_text(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.toml"
        path.write_bytes(data)
        try:
            league = load_league(path)
        except LeagueFileError as exc:
            assert len(str(exc)) < 1000
            return
        assert league.bots and league.games_per_pairing >= 1


def league_text(value: dict[str, Any]) -> bytes:
    lines = [f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()]
    return "\n".join(lines).encode("utf-8", "surrogatepass")


# ---- the command line -------------------------------------------------------------------------

cli_words = st.sampled_from([
    "btt", "blox", "roots", "the-tree", "treeblox", "nope", "Nc3", "Rd2", "1c2>d2", "--players", "2", "3", "7",
    "-1", "0", "--option", "board=rect", "board=", "=x", "radius=3", "radius=99", "variant=bridge", "--seed",
    str(1 << 70), "--deal", "plant 0", "roll 1,2,3,3,5/6", "--ply", "--game", "--level", "--html", "x" * 3000,
    "\x00", "é", "--", "-", "/", ".", "/dev/null",
]) | st.text(max_size=10)
cli_commands = st.sampled_from([["legal"], ["perft"], ["replay"], ["verify"], ["games"], ["league", "table"]])

def check_record_file(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.pgn"
        path.write_bytes(data)
        try:
            for game in records.read(path):
                verify(game)
        except RecordSyntaxError as exc:
            assert str(exc).startswith(str(path)) and exc.line >= 1 and exc.column >= 1


def check_nesting(depth: int, opener: str, noise: bytes) -> None:
    check_bot_line(b'{"type":"action","action":"a","x":' + nested(depth, opener) + b"}")
    check_bot_line(nested(depth, opener) + noise)


def check_command_line(command: list[str], words: list[str]) -> None:
    if command == ["perft"]:
        words = [*words[:1], "1", *words[1:]]
    result = run_cli(*command, *words)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2)


# ---- the targets --------------------------------------------------------------------------------

TARGETS: dict[str, tuple[Callable[..., None], tuple[st.SearchStrategy[Any], ...]]] = {
    "bot line: any bytes": (check_bot_line, (st.binary(max_size=300),)),
    "bot line: JSON-shaped": (lambda value: check_bot_line(json.dumps(value).encode()), (message_like,)),
    "bot line: unescaped UTF-8": (lambda value: check_bot_line(
        json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")), (message_like,)),
    "bot line: nesting": (check_nesting, (st.integers(0, 3000), st.sampled_from(["[", "{"]), st.binary(max_size=5))),
    "records: any text": (check_record_text, (st.text(max_size=200),)),
    "records: record-shaped text": (check_record_text, (record_like,)),
    "records: a mutated record": (lambda data: check_record_text(mutate(GOOD, data)), (st.data(),)),
    "records: any bytes as a file": (check_record_file, (st.binary(max_size=300),)),
    "league file: any bytes": (check_league_text, (st.binary(max_size=200),)),
    "league file: league-shaped": (lambda value: check_league_text(league_text(value)), (league_like,)),
    "command line": (check_command_line, (cli_commands, st.lists(cli_words, max_size=6))),
}
"""Each reader of untrusted input, with the strategies that feed it."""

SLOW_TARGETS = ["bot line: any bytes", "bot line: JSON-shaped", "records: record-shaped text",
                "records: a mutated record", "league file: any bytes", "league file: league-shaped"]
"""The targets run with 20,000 examples each by `pytest -m slow`."""


def fuzz(target: str, examples: settings) -> None:
    check, strategies = TARGETS[target]
    examples(given(*strategies)(check))()


@pytest.mark.parametrize("target", TARGETS)
def test_fuzzing_finds_nothing(target: str) -> None:
    fuzz(target, FEW)


@pytest.mark.slow
@pytest.mark.parametrize("target", SLOW_TARGETS)
def test_fuzzing_finds_nothing_in_20000_examples(target: str) -> None:
    fuzz(target, MANY)
