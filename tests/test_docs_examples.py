"""The docs' examples are true: every record in docs/records.md reads, verifies and
writes back byte for byte; every JSON example of docs/protocol.md decodes as the
protocol message it shows."""

from __future__ import annotations

import re
from pathlib import Path

from arena.records.reader import read_text
from arena.records.replay import verify
from arena.records.writer import write_all

DOCS = Path(__file__).resolve().parent.parent / "docs"


def code_blocks(path: Path) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def test_the_record_examples_verify_and_round_trip() -> None:
    blocks = [b for b in code_blocks(DOCS / "records.md") if b.lstrip().startswith("[Event")]
    assert blocks, "docs/records.md has no complete record example"
    for block in blocks:
        games = read_text(block)
        assert games
        for index, game in enumerate(games):
            assert verify(game, index) == [], (index, game.tags.get("Round"))
        assert write_all(games) == block


def test_every_json_example_of_the_protocol_is_a_message_as_the_referee_writes_it() -> None:
    import json

    import msgspec

    from protocol.codec import decode_bot, decode_referee, encode

    blocks = [b for b in code_blocks(DOCS / "protocol.md") if b.lstrip().startswith("{")]
    assert len(blocks) >= 7
    kinds = set()
    for block in blocks:
        line = " ".join(block.split("\n")).strip().encode()
        shown = json.loads(line)
        kinds.add(shown["type"])
        if shown["type"] in ("ready", "action"):
            # A bot may send fields at their defaults: every field shown is read as shown.
            message = decode_bot(line)
            fields = msgspec.to_builtins({f: getattr(message, f) for f in message.__struct_fields__})
            assert {k: fields[k] for k in shown if k != "type"} == {k: v for k, v in shown.items() if k != "type"}
        else:
            # What the referee's example shows is what encoding the message gives: no
            # field it would leave out, none missing.
            assert json.loads(encode(decode_referee(line))) == shown, shown["type"]
    assert kinds == {"hello", "start", "request", "end", "quit", "ready", "action"}
