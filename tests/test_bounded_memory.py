"""What the referee keeps of a bot's output is bounded where it is read: `info` is cut
to the record's cap when decoded, a `ready`'s texts to a few hundred characters, and
stderr past its cap is dropped unread."""

from __future__ import annotations

import json
import os
from pathlib import Path

import trio

from arena.process.botnames import resolve_bot
from arena.process.stderr_log import StderrLog
from arena.records.record import info_text
from arena.records.replay import verify
from arena.timecontrol import TimeControl
from protocol.codec import INFO_CAP, READY_TEXT_CAP, cut_info, decode_bot
from protocol.messages import Action, Info, Ready
from tests.helpers.botmatch import run_match


def test_info_within_the_cap_is_kept_as_it_is() -> None:
    info = Info(score=0.25, depth=4, nodes=12000, pv=["a", "b"], comment="thinking")
    assert cut_info(info) is info


def test_a_long_comment_is_cut_to_an_excerpt_with_the_cut_noted() -> None:
    info = Info(score=0.5, depth=3, comment="é" * 5000)
    cut = cut_info(info)
    text = info_text(cut)
    assert len(text.encode()) <= INFO_CAP
    assert text.startswith("score=0.5 depth=3 éé")
    assert text.endswith(f" [arena: cut to {INFO_CAP} of {len(info_text(info).encode())} bytes]")
    assert (cut.score, cut.depth) == (0.5, 3)


def test_a_long_pv_keeps_its_first_moves() -> None:
    info = Info(nodes=7, pv=[f"m{i}" for i in range(5000)])
    cut = cut_info(info)
    assert cut.pv is not None and cut.pv[:3] == ["m0", "m1", "m2"] and len(cut.pv) < 300
    assert cut.nodes == 7
    assert len(info_text(cut).encode()) <= INFO_CAP
    assert info_text(cut).endswith("bytes]")


def test_decoding_a_megabyte_of_info_keeps_a_kilobyte() -> None:
    line = json.dumps({"type": "action", "action": "Nc3", "info": {
        "comment": "x" * 900_000, "pv": ["Nc3"] * 10_000, "score": 1.5}}).encode()
    message = decode_bot(line)
    assert isinstance(message, Action) and message.action == "Nc3" and message.info is not None
    assert len(info_text(message.info).encode()) <= INFO_CAP
    assert message.info.score == 1.5


def test_a_ready_with_huge_texts_keeps_their_starts() -> None:
    line = json.dumps({"type": "ready", "name": "n" * 100_000, "version": "v" * 5000, "author": "a"}).encode()
    message = decode_bot(line)
    assert isinstance(message, Ready)
    assert message.name == "n" * READY_TEXT_CAP and message.version == "v" * READY_TEXT_CAP and message.author == "a"


def test_a_match_against_a_megabyte_of_info_per_answer_keeps_a_kilobyte_per_ply() -> None:
    """The record kept for the match (in the referee's memory until the match ends)
    holds at most INFO_CAP bytes of info a ply, not the megabyte sent."""
    result = run_match("btt", [resolve_bot("random", "btt"), resolve_bot("zoo/fat_info", "btt")],
                       TimeControl(per_move_s=5.0), seed=3, games=2)
    fat = 0
    for outcome in result.outcomes:
        assert outcome.termination == "normal" and verify(outcome.record) == []
        for ply in outcome.record.plies:
            if ply.info is not None:
                fat += 1
                assert len(info_text(ply.info).encode()) <= INFO_CAP
                assert "[arena: cut to 1024 of 9" in info_text(ply.info)
    assert fat >= 16


def test_stderr_past_its_cap_is_counted_and_dropped(tmp_path: Path) -> None:
    log_path = tmp_path / "bot.log"
    read_end, write_end = os.pipe()
    written = 0
    log = StderrLog(read_end, log_path, cap=10_000, sandboxed=False)

    async def main() -> None:
        nonlocal written
        async with trio.open_nursery() as nursery:
            nursery.start_soon(log.drain)
            os.set_blocking(write_end, False)
            chunk = b"spam " * 2000 + b"\n"
            for _ in range(200):
                while True:
                    try:
                        written += os.write(write_end, chunk)
                        break
                    except BlockingIOError:
                        await trio.sleep(0.005)
            os.close(write_end)
        log.close_pipe()

    trio.run(main)
    assert log.bytes == written > 1_000_000
    text = log_path.read_bytes()
    assert text.startswith(b"spam spam") and text.endswith(b"[arena: log capped at 10000 bytes]\n")
    assert len(text) < 10_100


def test_what_the_pipe_holds_when_the_bot_is_killed_is_logged(tmp_path: Path) -> None:
    """The drain pauses between reads; a bot's last lines before it is killed (often
    the ones that say why) are read from the pipe before our end is closed."""
    log_path = tmp_path / "bot.log"
    read_end, write_end = os.pipe()
    log = StderrLog(read_end, log_path, cap=10_000, sandboxed=False)

    async def main() -> None:
        log.open_file()  # as the drain opens it
        os.write(write_end, b"thinking...\nTraceback: out of ideas\n")
        log.close_pipe()  # killed before the drain read a byte
        log.close()

    trio.run(main)
    os.close(write_end)
    assert log_path.read_bytes() == b"thinking...\nTraceback: out of ideas\n"
    assert "out of ideas" in log.last_words()
