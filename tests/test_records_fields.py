"""A record read back holds what it was written with: each ply's bot info (score, depth,
nodes, pv, comment) as an Info again, not comment text, and its acting seat from one
replay of the rules (`GameRecord.actors()`); a file read and written again is still
the same bytes."""

from __future__ import annotations

import random

import pytest

from arena.games import get
from arena.games.base import CHANCE, TERMINAL
from arena.records.reader import read_text
from arena.records.record import GameRecord, Ply, turn_numbers
from arena.records.replay import ReplayError, verify
from arena.records.syntax import COMMENT_CAP
from arena.records.writer import write
from protocol.messages import Info

BTT_ACTIONS = ["Nd4", "Rc2", "1c1>c2", "3b2>c2", "2d1>c1", "2e1>d1", "1c3>c2", "1c4>c3"]
"""The first plies of a btt game (seat 0 and 1 by turns)."""

BTT_TEXT = """\
[Game "btt"]
[Seats "2"]
[Termination "time-out"]

1. Nd4 {opening} 2. Rc2 {opening} 3. 1c1>c2
{12.5ms cpu=11.0ms score=0.25 depth=4 nodes=12000 pv=1d3>d2,2e2>d2 safe}
4. 3b2>c2 {0.4ms lost track of the game; first legal action} 5. 2d1>c1 {forced}
6. 2e1>d1 {3.0ms score=-1.5 pv=1c3>c2} 7. 1c3>c2 {2.0ms}
8. 1c4>c3 {9.9ms nodes=7 a=1 b=2}
"""
"""A record as the referee writes one: openings, a bot's full info, a comment-only
info, a forced ply, a partial info, no info, and a bot's own NAME=NUMBER words."""


def test_a_concrete_record_reads_back_its_infos_comments_and_actors() -> None:
    record = read_text(BTT_TEXT)[0]
    plies = record.plies
    assert [p.comment for p in plies[:2]] == ["opening", "opening"] and plies[0].info is None
    assert plies[2].info == Info(score=0.25, depth=4, nodes=12000, pv=["1d3>d2", "2e2>d2"], comment="safe")
    assert (plies[2].elapsed_ms, plies[2].cpu_ms, plies[2].comment) == (12.5, 11.0, None)
    assert plies[3].info == Info(comment="lost track of the game; first legal action") and plies[3].comment is None
    assert plies[4].forced and plies[4].info is None and plies[4].comment is None
    assert plies[5].info == Info(score=-1.5, pv=["1c3>c2"])
    assert plies[6].info is None and plies[6].elapsed_ms == 2.0
    assert plies[7].info == Info(nodes=7, comment="a=1 b=2")
    assert all(p.actor is None for p in plies)  # the file does not say; asking replays once
    assert record.actors() == [0, 1, 0, 1, 0, 1, 0, 1]
    assert [p.actor for p in plies] == [0, 1, 0, 1, 0, 1, 0, 1]
    assert write(record) == BTT_TEXT


def _btt_record(infos: list[Info | None]) -> GameRecord:
    state = get("btt").new_state(2)
    plies = []
    for turn, (action, info) in zip(turn_numbers([0, 1] * 4), zip(BTT_ACTIONS, infos, strict=True), strict=False):
        plies.append(Ply(turn, action, actor=state.current(), elapsed_ms=1.5, cpu_ms=0.5, info=info))
        state.apply(action)
    return GameRecord({"Game": "btt", "Seats": "2", "Ranks": "2,1", "Termination": "time-out"}, plies)


def test_infos_the_referee_recorded_read_back_equal() -> None:
    infos: list[Info | None] = [
        Info(score=1 / 3, depth=12, nodes=(1 << 63) - 1, pv=["1d3>d2"], comment="a third, to the last digit"),
        Info(score=1234567.0),          # `:g` would write 1.23457e+06
        Info(score=-0.0, depth=0),
        Info(pv=["a b", "c,d", "[e]", "é"]),  # actions with a blank, a comma, brackets: a JSON list
        Info(pv=["draw r4 4/2"], depth=2),      # a blank alone makes it JSON too
        Info(comment="score=oops depth=4x"),   # words that are no field stay the comment
        Info(score=float("inf"), comment="  two leading blanks"),
        Info(comment="x" * 900 + " [arena: cut to 1024 of 5000 bytes]"),  # cut by the protocol: its own note
    ]
    record = _btt_record(infos)
    text = write(record)
    back = read_text(text)[0]
    assert [p.info for p in back.plies] == infos
    assert [p.comment for p in back.plies] == [None] * len(infos)
    assert back.actors() == [p.actor for p in record.plies]
    assert write(back) == text and verify(back) == []


def test_a_pv_of_actions_with_commas_is_written_as_a_json_list() -> None:
    """The Tree's placements hold commas: `pv=13@0,0,31@2,1` would read back as four."""
    info = Info(score=2.0, pv=["13@0,0", "31@2,1"], comment="ok")
    record = _btt_record([info] + [None] * 7)
    text = write(record)
    assert '{1.5ms cpu=0.5ms score=2 pv=["13@0,0","31@2,1"] ok}' in text
    assert read_text(text)[0].plies[0].info == info


@pytest.mark.parametrize("comment", [
    "12.0ms score=0.50 x",             # 0.50 is not how the writer spells 0.5: text
    "12.0ms depth=04",
    "12.0ms score=1 ",                 # a trailing blank
    "12.0ms  two blanks",
    "12.0ms pv=[\"a\"] y",             # a JSON list the writer would write plain
    "12.0ms pv=a,,b",
    "12.0ms pv=[x,y",
    "12.0ms score=1e+06 depth=3 nodes=5 pv= c",
    "forced",
    "opening",
    "cpu=3.0ms",
    "12.0ms ",
    "score=3 by hand",                 # no time: not a bot's decision, yet its info
    "1.0ms " + "w" * (COMMENT_CAP - 1) + " [arena: cut to 1024 of 1500 bytes]",  # cap_comment's cut
])
def test_any_comment_reads_and_writes_back_byte_for_byte(comment: str) -> None:
    text = write(read_text(f'[Game "btt"]\n[Seats "2"]\n\n1. Nd4 {{{comment}}}\n')[0])
    assert "{" + comment + "}" in text
    assert write(read_text(text)[0]) == text


def test_a_cut_info_keeps_the_cap_note_in_the_plys_comment() -> None:
    comment = "1.0ms score=1 " + "w" * (COMMENT_CAP - 8) + " [arena: cut to 1024 of 1500 bytes]"
    ply = read_text(f'[Game "btt"]\n[Seats "2"]\n\n1. Nd4 {{{comment}}}\n')[0].plies[0]
    assert ply.info is not None and ply.info.score == 1.0 and ply.info.comment == "w" * (COMMENT_CAP - 8)
    assert ply.comment == "[arena: cut to 1024 of 1500 bytes]"


def test_actors_of_a_game_with_chance_and_extra_turns_come_from_the_rules() -> None:
    """The Tree: a deal (chance), then seats whose extra turns break any rotation."""
    rng = random.Random(0)
    state = get("the-tree").new_state(3)
    plies: list[Ply] = []
    actors: list[int] = []
    while state.current() != TERMINAL:
        actor = state.current()
        action = state.sample_chance(rng) if actor == CHANCE else rng.choice(state.legal_actions())
        actors.append(actor)
        plies.append(Ply(0, action, chance=actor == CHANCE, actor=actor,
                         info=None if actor == CHANCE else Info(pv=[action], score=float(len(plies)))))
        state.apply(action)
    for ply, turn in zip(plies, turn_numbers(actors), strict=True):
        ply.turn = turn
    assert any(a == b != CHANCE for a, b in zip(actors, actors[1:], strict=False))  # an extra turn
    record = GameRecord({"Game": "the-tree", "Seats": "3"}, plies)
    back = read_text(write(record))[0]
    assert back.actors() == actors and back.actors() == [p.actor for p in back.plies]
    assert [p.info for p in back.plies] == [p.info for p in plies]


def test_actors_needs_rules_that_follow_the_record_and_trusts_known_ones() -> None:
    text = BTT_TEXT.replace("2d1>c1", "2d1>zz")
    record = read_text(text)[0]
    with pytest.raises(ReplayError, match="ply 5"):
        record.actors()
    assert [p.actor for p in record.plies[:4]] == [0, 1, 0, 1]  # filled up to the bad ply
    made = GameRecord({"Game": "no-such-game", "Seats": "2"}, [Ply(1, "x", actor=1)])
    assert made.actors() == [1]  # the referee's own record is not replayed
