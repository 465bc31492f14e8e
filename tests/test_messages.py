"""What a bot author reads when a bot goes wrong: each reason as docs/protocol.md's
table names it, with a detail that says the likely cause first."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.process.bot_process import telling_lines
from arena.records.files import read_record_file
from tests.helpers.cli import run_cli

LOOP = """
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        {hello}
    elif m["type"] == "request":
        {request}
    elif m["type"] == "quit":
        break
"""


def bot(tmp_path: Path, name: str, hello: str, request: str = "print(json.dumps({'type': 'action', "
        "'action': m['legal'][0]}), flush=True)") -> str:
    path = tmp_path / "bots" / f"{name}.py"  # a folder of its own: the records may not lie in a bot's folder
    path.parent.mkdir(exist_ok=True)
    path.write_text(LOOP.format(hello=hello, request=request))
    return f"{sys.executable} {path}"


def one_game(tmp_path: Path, command: str, *more: str) -> tuple[str, dict[str, str]]:
    out = tmp_path / "g.pgn"
    result = run_cli("play", "btt", command, "random", "--seed", "1", "--out", str(out), "-q", *more)
    records = read_record_file(out) if out.exists() and out.read_text() else []
    return " ".join(result.output.split()), records[-1].tags if records else {}


def test_the_telling_lines_of_a_crash_skip_decoration() -> None:
    node = "\n#\n# Fatal process OOM in Failed to reserve virtual memory for CodeRange\n#\n"
    assert telling_lines(node) == "Fatal process OOM in Failed to reserve virtual memory for CodeRange"
    python = "Traceback (most recent call last):\n  File \"bot.py\", line 3\nValueError: no move\n\n"
    assert telling_lines(python) == 'File "bot.py", line 3 | ValueError: no move'
    assert telling_lines("###\n\n") == ""


def test_a_crash_quotes_the_lines_that_say_why(tmp_path: Path) -> None:
    dies = bot(tmp_path, "dies", "print(json.dumps({'type': 'ready', 'name': 'd'}), flush=True)",
               "sys.stderr.write('#\\n# Fatal: out of luck\\n#\\n'); sys.stderr.flush(); sys.exit(3)")
    _, tags = one_game(tmp_path, dies)
    assert tags["Termination"] == "crash"
    assert "exit code 3" in tags["TerminationDetail"] and "Fatal: out of luck" in tags["TerminationDetail"]


def test_a_bot_that_never_flushes_is_told_so_first(tmp_path: Path) -> None:
    silent = bot(tmp_path, "silent", "print(json.dumps({'type': 'ready', 'name': 's'}))")  # no flush
    output, _ = one_game(tmp_path, silent, "--startup-time", "1")
    assert "nothing at all came from the bot within 1 s of hello: most likely it does not flush" in output


def test_a_ready_without_a_name_fails_the_start_up_not_a_ply(tmp_path: Path) -> None:
    nameless = bot(tmp_path, "nameless", "print(json.dumps({'type': 'ready'}), flush=True)")
    output, tags = one_game(tmp_path, nameless)
    assert tags["Termination"] == "startup-failure"
    assert "at start-up" in tags["TerminationDetail"] and "at ply" not in tags["TerminationDetail"]
    assert "missing required field `name`" in tags["TerminationDetail"]


def test_an_unknown_message_type_is_malformed(tmp_path: Path) -> None:
    chatty = bot(tmp_path, "chatty", "print(json.dumps({'type': 'ready', 'name': 'c'}), flush=True)",
                 "print(json.dumps({'type': 'thinking'}), flush=True)")
    _, tags = one_game(tmp_path, chatty)
    assert tags["Termination"] == "malformed" and "'thinking'" in tags["TerminationDetail"]


def test_a_command_bot_is_named_as_it_names_itself(tmp_path: Path) -> None:
    named = bot(tmp_path, "b", "print(json.dumps({'type': 'ready', 'name': 'Deep Thought'}), flush=True)")
    output, tags = one_game(tmp_path, named)
    assert tags["Player0"] == "Deep Thought" and "Deep Thought" in output
