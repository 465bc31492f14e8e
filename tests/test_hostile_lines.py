"""Whatever bytes a bot writes, the referee records a fault with a precise reason and
goes on: bad UTF-8, JSON nested 100,000 deep, numbers no field holds, a megabyte of
info on every move, an action the rules' `apply` refuses after `is_legal` let it pass.
Each through the real referee and real processes, with two seats (a forfeit) and three
(the seat is removed and the others finish), and in a league that must finish."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena import records
from arena.games import GAMES
from arena.games.base import IllegalAction
from arena.games.btt import BTT, BTTState
from arena.process.bot_process import processes_in_group
from arena.process.botnames import resolve_bot
from arena.process.spec import BotSpec
from arena.records.files import read_record_file
from arena.records.replay import state_at, verify
from arena.referee.match import MatchResult
from arena.referee.player import Timing
from arena.timecontrol import TimeControl
from tests.helpers.botmatch import run_match
from tests.helpers.cli import run_cli

HOSTILE = [
    ("bad_utf8", {}, "malformed", "not UTF-8 text: byte 0xff"),
    ("bad_utf8", {"ZOO_WHERE": "ready"}, "startup-failure", "not UTF-8 text: byte 0xc3"),
    ("deep_nesting", {}, "malformed", "nested 100001 levels deep"),
    ("deep_nesting", {"ZOO_DEPTH": "1000"}, "malformed", "nested 1001 levels deep"),
    ("huge_number", {}, "malformed", "Integer value out of range - at `$.info.nodes`"),
]


def zoo(name: str, env: dict[str, str] | None = None, ply: int = 2) -> BotSpec:
    spec = resolve_bot(f"zoo/{name}", "btt")
    spec.env.update({"ZOO_PLY": str(ply), **(env or {})})
    return spec


def play(game_id: str, specs: list[BotSpec], games: int = 1, per_move: float = 2.0) -> MatchResult:
    """A match on the CPU basis, with a start-up limit no loaded machine reaches: the
    faults here are of lines, never of time."""
    result = run_match(game_id, specs, TimeControl(per_move_s=per_move, basis="cpu"), seed=5, games=games,
                       timing=Timing(startup_s=30.0, grace_s=0.05))
    for pgid in result.pgids:
        assert processes_in_group(pgid) == []
    return result


def assert_survivors_finished(result: MatchResult, hostile_seat: int) -> None:
    """The seats left played the game to its end and keep the rules' order."""
    outcome = result.outcomes[0]
    record = outcome.record
    final = state_at(record, len(record.plies))
    assert final.is_terminal() and verify(record) == []
    scores = final.result().scores
    survivors = [s for s in range(len(outcome.ranks)) if s != hostile_seat]
    for a in survivors:
        for b in survivors:
            if scores[a] > scores[b]:
                assert outcome.ranks[a] < outcome.ranks[b]


@pytest.mark.parametrize(("bot", "env", "reason", "detail"), HOSTILE)
def test_a_hostile_line_forfeits_a_two_seat_game(bot: str, env: dict[str, str], reason: str, detail: str) -> None:
    result = play("btt", [resolve_bot("random", "btt"), zoo(bot, env)])
    outcome = result.outcomes[0]
    assert outcome.termination == reason
    assert outcome.ranks == (1, 2) and [f.seat for f in outcome.faults] == [1]
    assert detail in outcome.faults[0].detail
    assert len(outcome.record.tags["TerminationDetail"]) < 600
    assert verify(outcome.record) == []


@pytest.mark.parametrize(("bot", "env", "reason", "detail"), HOSTILE)
def test_a_hostile_line_removes_the_seat_and_the_others_finish(
        bot: str, env: dict[str, str], reason: str, detail: str) -> None:
    result = play("btt", [resolve_bot("random", "btt"), zoo(bot, env), resolve_bot("greedy", "btt")])
    outcome = result.outcomes[0]
    assert outcome.termination == reason and outcome.ranks[1] == 3
    assert detail in outcome.faults[0].detail
    assert_survivors_finished(result, hostile_seat=1)


def test_a_megabyte_of_info_per_move_is_cut_to_a_kilobyte_in_the_record() -> None:
    result = play("btt", [resolve_bot("random", "btt"), zoo("fat_info")])
    outcome = result.outcomes[0]
    assert outcome.termination == "normal" and verify(outcome.record) == []
    fat = [p.comment_text() or "" for i, p in enumerate(outcome.record.plies) if i % 2 == 1]
    assert len(fat) == 16
    for comment in fat:
        assert re.search(r" \[arena: cut to 1024 of 9\d{5} bytes\]$", comment), comment[-60:]
        assert len(comment.encode()) <= 1024 + 60  # the thinking time, the info cut to 1 KB, the note
    assert len(records.write(outcome.record)) < 40_000


# ---- an action that is_legal accepts and apply refuses ----------------------------------------


class LaxState(BTTState):
    """BTT whose legality check lets "zz-refused" through while `apply` refuses it, after
    spoiling part of the state as a careless implementation might."""

    def is_legal(self, action: str) -> bool:
        return action == "zz-refused" or super().is_legal(action)

    def apply(self, action: str) -> None:
        if action == "zz-refused":
            self.ply += 7
            raise IllegalAction(action, "the lax game's apply refuses it")
        super().apply(action)

    def clone(self) -> LaxState:
        twin = super().clone()
        twin.__class__ = LaxState
        return twin


class LaxBTT(BTT):
    id = "lax-btt"

    def _initial_state(self, seats: int, options: dict[str, str]) -> BTTState:
        state = super()._initial_state(seats, options)
        state.__class__ = LaxState
        return state


@pytest.fixture
def lax_game(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(GAMES, LaxBTT.id, LaxBTT())
    return LaxBTT.id


@pytest.mark.parametrize("seats", [2, 3])
def test_an_action_the_rules_refuse_after_is_legal_is_the_seats_fault(lax_game: str, seats: int) -> None:
    refusing = zoo("illegal", {"ZOO_ACTION": "zz-refused"}, ply=3)
    others = [resolve_bot("random", "btt") for _ in range(seats - 1)]
    result = play(lax_game, [refusing, *others], games=2)
    first = result.outcomes[0]
    assert first.termination == "illegal-action" and first.faults[0].seat == 0
    assert "the rules refused 'zz-refused' at ply" in first.faults[0].detail
    assert "the lax game's apply refuses it" in first.faults[0].detail
    assert first.ranks[0] == seats
    if seats == 3:
        assert_survivors_finished(result, hostile_seat=0)
    assert result.outcomes[1].termination == "illegal-action"  # the bot was restarted and did it again


# ---- a league with every hostile bot finishes -------------------------------------------------


def test_a_league_of_hostile_bots_finishes_with_every_game_stored(tmp_path: Path) -> None:
    bots: list[tuple[str, str, dict[str, str]]] = [("random", "random", {}), ("greedy", "greedy", {})]
    bots += [(f"{bot}-{i}", f"zoo/{bot}", {"ZOO_PLY": "1", **env}) for i, (bot, env, _, _) in enumerate(HOSTILE)]
    lines = ["[[bots]]\nname = {}\ncommand = {}\nenv = {}".format(
        json.dumps(name), json.dumps(command), "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items())
        + " }") for name, command, env in bots]
    league = tmp_path / "hostile.toml"
    league.write_text('name = "hostile"\ngame = "btt"\ngames_per_pairing = 2\nconcurrency = 2\n'
                      '[time]\nper_move = "2s"\nbasis = "cpu"\nstartup = "30s"\n' + "\n".join(lines) + "\n")
    result = run_cli("league", "run", str(league), "-q")
    assert result.exit_code == 0, result.output
    records = read_record_file(tmp_path / "hostile" / "league.pgn")
    tables = len(bots) * (len(bots) - 1) // 2
    assert len(records) == 2 * tables
    honest = [r for r in records if set(r.players) == {"random", "greedy"}]
    assert len(honest) == 2 and all(r.termination == "normal" for r in honest)
    for record in records:
        hostile = [seat for seat, name in enumerate(record.players) if name not in ("random", "greedy")]
        if hostile:
            assert record.termination in ("malformed", "startup-failure"), record.tags
        if len(hostile) == 1:
            assert record.ranks is not None and record.ranks[hostile[0]] == 2
    assert run_cli("verify", str(tmp_path / "hostile" / "league.pgn")).exit_code == 0
    table = json.loads(run_cli("league", "table", str(league), "-f", "json").output)
    faults = {row["bot"]: sum(row["faults"].values()) for row in table["standings"]}
    assert faults["random"] == faults["greedy"] == 0
    # Each hostile bot faults in all 4 of its games against honest bots, and in some of
    # its games against other hostile bots (the first to fault ends a 2-seat game).
    assert all(4 <= faults[name] <= 2 * (len(bots) - 1) for name, _, _ in bots[2:])
    assert sum(faults.values()) == len(records) - len(honest)
