"""The referee's decision path under trio's MockClock, with bots written as coroutines
behind the in-memory channel: time-outs, grace, the game clock, dying bots, extra
lines, the protocol's opt-outs and a bot's info, all without a process or a real
sleep, so no loaded machine can change an outcome."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import trio
import trio.testing

from arena import games, records
from arena.process.channel import FakeBot, FakeBotIO, memory_launcher
from arena.process.spec import BotSpec
from arena.records.record import Ply
from arena.records.replay import verify
from arena.referee.match import MatchResult
from arena.referee.player import Timing
from arena.termination import Termination
from arena.timecontrol import TimeControl
from protocol.messages import Info
from tests.helpers.botmatch import run_match

Think = Callable[[dict[str, Any], int], Awaitable[dict[str, Any] | bytes | None]]
"""A fake bot's answer to its k-th request (from 1): a message, raw bytes, or None to
answer nothing at all."""


def fake(think: Think, ready: dict[str, Any] | None = None, seen: list[dict[str, Any]] | None = None) -> FakeBot:
    """A bot that answers hello, and each request as `think` says."""

    async def bot(io: FakeBotIO) -> None:
        requests = 0
        while (line := await io.read_line()) is not None:
            message = json.loads(line)
            if seen is not None:
                seen.append(message)
            if message["type"] == "hello":
                await io.write(json.dumps({"type": "ready", "name": "fake", **(ready or {})}).encode() + b"\n")
            elif message["type"] == "request":
                requests += 1
                answer = await think(message, requests)
                if isinstance(answer, bytes):
                    await io.write(answer)
                elif answer is not None:
                    await io.write(json.dumps(answer).encode() + b"\n")
            elif message["type"] == "quit":
                return

    return bot


def after(seconds: float, at: int | None = None) -> Think:
    """Think `seconds` (only at request `at`, when given), then play the first legal action."""

    async def think(message: dict[str, Any], k: int) -> dict[str, Any]:
        if at is None or k == at:
            await trio.sleep(seconds)
        return {"type": "action", "action": message["legal"][0]}

    return think


def play(bots: list[FakeBot], control: TimeControl, grace: float = 0.05, games: int = 1,
         startup: float = 5.0, own: dict[int, TimeControl] | None = None) -> MatchResult:
    names = [f"bot{i}" for i in range(len(bots))]
    specs = [BotSpec(name, ["unused"], time_control=(own or {}).get(i)) for i, name in enumerate(names)]
    return run_match("btt", specs, control, seed=1, games=games, timing=Timing(startup_s=startup, grace_s=grace),
                     launcher=memory_launcher(dict(zip(names, bots, strict=True))), mock_clock=True)


def seat_plies(result: MatchResult, seat: int) -> list[Ply]:
    return [p for p in result.outcomes[0].record.plies if p.actor == seat]


PER_MOVE = TimeControl(per_move_s=0.2)


def test_an_answer_within_the_limit_is_timed_exactly() -> None:
    result = play([fake(after(0.0)), fake(after(0.2))], PER_MOVE)
    outcome = result.outcomes[0]
    assert outcome.termination == Termination.NORMAL and verify(outcome.record) == []
    assert {p.elapsed_ms for p in seat_plies(result, 1)} == {200.0}
    assert {p.elapsed_ms for p in seat_plies(result, 0)} == {0.0}


def test_an_answer_within_the_grace_counts_and_one_after_it_is_a_time_out() -> None:
    within = play([fake(after(0.0)), fake(after(0.24, at=3))], PER_MOVE)
    assert within.outcomes[0].termination == Termination.NORMAL
    assert seat_plies(within, 1)[2].elapsed_ms == 240.0
    late = play([fake(after(0.0)), fake(after(0.26, at=3))], PER_MOVE)
    outcome = late.outcomes[0]
    assert outcome.termination == Termination.TIME_OUT and outcome.ranks == (1, 2)
    fault = outcome.faults[0]
    assert fault.seat == 1 and fault.ply == 6 and fault.detail == "answered after 260 ms (limit 200 ms)"
    assert len(outcome.record.plies) == 5
    silent = play([fake(after(0.0)), fake(after(5.0, at=3))], PER_MOVE).outcomes[0]
    assert silent.termination == Termination.TIME_OUT and silent.faults[0].ply == 6
    assert silent.faults[0].detail == "no answer in time (limit 200 ms)"


def test_a_request_without_an_answer_is_noticed_within_its_slack_after_the_deadline() -> None:
    """The game's requests share one deadline scope, moved only when it is not within
    the slack after a request's own deadline (cheaper than a scope per request): a bot
    that never answers is faulted after its limit plus grace, and at most the slack
    (a tenth of a 0.2 s limit) later."""
    from arena.process.spec import Limits
    from arena.referee.decision import Decisions
    from arena.referee.player import BotPlayer
    from protocol.messages import Clock, Request

    faulted: list[tuple[int, str, float]] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            launch = memory_launcher({"quick": fake(after(0.0)), "mute": fake(after(60.0))})
            players = [BotPlayer(BotSpec(name, ["unused"]), None, Limits(), Timing(grace_s=0.05), launch)
                       for name in ("quick", "mute")]
            for player in players:
                await player.start(nursery)
            decisions = Decisions()
            request = Request(ply=1, clock=Clock(move_ms=200), events=[], legal=["Na1"], observation=None)

            asked = [0, 0, 0, 1]

            async def game() -> None:  # run() calls it again after a fault: it goes on from where it was
                while asked:
                    seat = asked.pop(0)
                    assert (await decisions.ask(seat, players[seat], request, 0.2)).action == "Na1"
                    await trio.sleep(0.015)  # the next request's deadline may be within the slack: not moved

            begin = trio.current_time()
            await decisions.run(game, lambda seat, fault: faulted.append(
                (seat, fault.detail, trio.current_time() - begin)))
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    [(seat, detail, noticed)] = faulted
    assert seat == 1 and detail == "no answer in time (limit 200 ms)"
    assert 0.045 + 0.25 - 1e-9 <= noticed <= 0.045 + 0.25 + 0.02 + 1e-9  # never before the deadline


def test_the_game_clock_runs_down_by_each_answer_and_flags_at_the_right_decision() -> None:
    seen: list[dict[str, Any]] = []
    clock = TimeControl(per_move_s=None, base_s=1.0, increment_s=0.0)
    result = play([fake(after(0.0)), fake(after(0.3), seen=seen)], clock, grace=0.05)
    outcome = result.outcomes[0]
    requests = [m for m in seen if m["type"] == "request"]
    assert [r["clock"]["remaining_ms"] for r in requests] == [1000, 700, 400, 100]
    assert [r["clock"]["move_ms"] for r in requests] == [1000, 700, 400, 100]
    assert outcome.termination == Termination.TIME_OUT and outcome.faults[0].ply == 8


def test_the_increment_keeps_a_clock_alive() -> None:
    seen: list[dict[str, Any]] = []
    clock = TimeControl(per_move_s=None, base_s=1.0, increment_s=0.3)
    result = play([fake(after(0.0)), fake(after(0.3), seen=seen)], clock)
    assert result.outcomes[0].termination == Termination.NORMAL
    remaining = [m["clock"]["remaining_ms"] for m in seen if m["type"] == "request"]
    assert set(remaining) == {1000} and len(remaining) == 16


def test_a_clock_emptied_within_the_grace_flags_at_the_next_decision() -> None:
    clock = TimeControl(per_move_s=None, base_s=0.5, increment_s=0.0)
    result = play([fake(after(0.0)), fake(after(0.52, at=2))], clock, grace=0.05)
    outcome = result.outcomes[0]
    assert outcome.termination == Termination.TIME_OUT and outcome.faults[0].ply == 6
    assert outcome.faults[0].detail == "its game clock had run out before this decision"


def test_a_bot_that_dies_while_thinking_is_a_crash_found_at_once() -> None:
    async def die(message: dict[str, Any], k: int) -> dict[str, Any]:
        if k == 2:
            await trio.sleep(0.1)
            raise RuntimeError("segfault, as it were")
        return {"type": "action", "action": message["legal"][0]}

    result = play([fake(after(0.0)), fake(die)], TimeControl(per_move_s=30.0))
    outcome = result.outcomes[0]
    assert outcome.termination == Termination.CRASH
    assert outcome.faults[0].detail == "the bot crashed (RuntimeError: segfault, as it were)"
    assert outcome.faults[0].ply == 4


def test_two_lines_for_one_request_and_unasked_output_are_unexpected_messages() -> None:
    async def twice(message: dict[str, Any], k: int) -> bytes:
        line = json.dumps({"type": "action", "action": message["legal"][0]}).encode() + b"\n"
        return line * 2 if k == 2 else line

    outcome = play([fake(after(0.0)), fake(twice)], PER_MOVE).outcomes[0]
    assert outcome.termination == Termination.UNEXPECTED_MESSAGE
    assert outcome.faults[0].detail.startswith("the bot wrote more than one line for one request")

    async def early(message: dict[str, Any], k: int) -> bytes:
        line = json.dumps({"type": "action", "action": message["legal"][0]}).encode() + b"\n"
        return line if k != 1 else line + b'{"type":"action","action":"Na1"}'

    outcome = play([fake(after(0.0)), fake(early)], PER_MOVE).outcomes[0]
    assert outcome.termination == Termination.UNEXPECTED_MESSAGE


def test_a_ready_that_never_comes_is_a_startup_timeout_at_start_up() -> None:
    async def sleepy(io: FakeBotIO) -> None:
        await trio.sleep(60)

    outcome = play([fake(after(0.0)), sleepy], PER_MOVE, startup=2.0).outcomes[0]
    assert outcome.termination == Termination.STARTUP_TIMEOUT and outcome.faults[0].ply == 0
    detail = outcome.faults[0].detail
    assert "nothing at all came from the bot within 2 s of hello: most likely it does not flush" in detail

    async def unfinished(io: FakeBotIO) -> None:
        await io.read_line()
        await io.write(b'{"type":"ready","name":"half"')
        await trio.sleep(60)

    outcome = play([fake(after(0.0)), unfinished], PER_MOVE, startup=2.0).outcomes[0]
    assert "began a line but did not end it (no newline) within 2 s" in outcome.faults[0].detail


def test_a_bot_named_by_its_command_is_shown_by_the_name_it_gives() -> None:
    from arena.process.spec import Limits
    from arena.referee.match import adopt_ready_names
    from arena.referee.player import BotPlayer
    from protocol.messages import Ready

    players = [BotPlayer(BotSpec(name, ["x"], named=named), None, Limits(), Timing())
               for name, named in (("mybot", False), ("mybot-2", False), ("Deep", True), ("other", False))]
    for player, given in zip(players, ["Deep", "Deep", "ignored", "\x1b \t"], strict=True):
        player.ready = Ready(name=given)
    adopt_ready_names(players)
    assert [p.name for p in players] == ["Deep-2", "Deep-3", "Deep", "other"]


def test_opting_out_of_legal_and_observation_leaves_them_out_and_events_suffice() -> None:
    seen: list[dict[str, Any]] = []
    state = games.get("btt").new_state(2, {})

    async def from_events(message: dict[str, Any], k: int) -> dict[str, Any]:
        for event in message["events"]:
            if event["ply"] > len(played):
                state.apply(event["action"])
                played.append(event["action"])
        action = state.legal_actions()[-1]
        return {"type": "action", "action": action}

    played: list[str] = []
    bot = fake(from_events, ready={"legal": False, "observation": False}, seen=seen)
    result = play([fake(after(0.0)), bot], PER_MOVE)
    assert result.outcomes[0].termination == Termination.NORMAL
    requests = [m for m in seen if m["type"] == "request"]
    assert requests and all("legal" not in r and "observation" not in r for r in requests)


def test_a_bots_info_reaches_the_record_structured_and_as_text() -> None:
    info = {"score": 0.5, "depth": 3, "nodes": 1200, "pv": ["Nc3", "Rd2"], "comment": "safe } line"}

    async def annotated(message: dict[str, Any], k: int) -> dict[str, Any]:
        return {"type": "action", "action": message["legal"][0], "info": info}

    result = play([fake(after(0.0)), fake(annotated)], PER_MOVE)
    ply = seat_plies(result, 1)[0]
    assert ply.info == Info(score=0.5, depth=3, nodes=1200, pv=["Nc3", "Rd2"], comment="safe } line")
    assert ply.comment_text() == "0.0ms score=0.5 depth=3 nodes=1200 pv=Nc3,Rd2 safe } line"
    assert "{0.0ms score=0.5 depth=3 nodes=1200 pv=Nc3,Rd2 safe ) line}" in records.write(result.outcomes[0].record)


def test_a_bot_with_its_own_time_control_plays_under_it_and_the_record_says_so() -> None:
    """A handicap: bot 1 has 1 s a move, bot 0 the match's 0.2 s; both think 0.5 s."""
    seen: list[dict[str, Any]] = []
    slow_but_allowed = play([fake(after(0.0)), fake(after(0.5), seen=seen)], PER_MOVE,
                            own={1: TimeControl(per_move_s=1.0)})
    outcome = slow_but_allowed.outcomes[0]
    assert outcome.termination == Termination.NORMAL
    assert outcome.record.tags["TimeControl"] == "move=0.2s / move=1s"
    start = next(m for m in seen if m["type"] == "start")
    assert start["time"]["per_move_ms"] == 1000
    assert {r["clock"]["move_ms"] for r in seen if r["type"] == "request"} == {1000}
    flagged = play([fake(after(0.5)), fake(after(0.0))], PER_MOVE, own={1: TimeControl(per_move_s=1.0)})
    assert flagged.outcomes[0].termination == Termination.TIME_OUT and flagged.outcomes[0].faults[0].seat == 0
