"""Python bots in the referee's process (arena.session.inprocess): an object with
`act(state, legal, clock)` plays through `arena.play` and `arena.match` under the
referee's clock, faults and records; The Tree gives it a guess of the hidden tiles,
never the truth; `concurrency` plays seat rotations at once."""

from __future__ import annotations

import threading
import time
import types
from pathlib import Path
from typing import Any

import pytest

import arena
from arena import records
from arena.games.base import Result, State
from arena.session.inprocess import Clock, bot_name, is_python_bot


class FirstLegal:
    """Plays the first legal action, with info; checks the state it gets is the game's."""

    def __init__(self) -> None:
        self.mismatches = 0
        self.calls = 0
        self.starts: list[tuple[str, int, int, dict[str, str]]] = []
        self.ends: list[Result] = []

    def act(self, state: State, legal: list[str], clock: Clock) -> tuple[str, dict[str, Any]]:
        self.calls += 1
        if sorted(state.legal_actions()) != sorted(legal) or state.current() != clock.seat:
            self.mismatches += 1
        state.apply(legal[-1])  # the bot's own copy: spoiling it changes nothing for the next request
        return legal[0], {"score": 0.25, "depth": 2, "comment": "first"}

    def start(self, game: str, seat: int, seats: int, options: dict[str, str]) -> None:
        self.starts.append((game, seat, seats, options))

    def end(self, result: Result) -> None:
        self.ends.append(result)


def test_an_object_plays_btt_against_a_process_with_its_info_in_the_record(tmp_path: Path) -> None:
    bot = FirstLegal()
    out = tmp_path / "games.pgn"
    result = arena.play("btt", [bot, "random"], games=2, seed=3, bot_seed=1, time="2s", out=out)
    assert result.names == ["FirstLegal", "random"]
    assert [o.termination for o in result.outcomes] == [arena.Termination.NORMAL] * 2
    assert all(not o.faults for o in result.outcomes)
    assert bot.calls > 4 and bot.mismatches == 0
    assert [(game, seat, seats) for game, seat, seats, _ in bot.starts] == [("btt", 0, 2), ("btt", 1, 2)]
    assert [r.ranks for r in bot.ends] == [o.ranks for o in result.outcomes]
    mine = [ply for ply in result.outcomes[0].record.plies if ply.actor == 0]
    assert mine and all(ply.info is not None and ply.info.score == 0.25 and ply.info.depth == 2 for ply in mine)
    assert all(ply.cpu_ms is not None for ply in mine)  # its thread's CPU time, as a process's is counted
    assert "score=0.25 depth=2 first" in out.read_text()


class Hands:
    """Records what it is given in The Tree: its state's hands and the observation."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int, list[list[str]], dict[str, Any]]] = []

    def act(self, state: State, legal: list[str], clock: Clock) -> str:
        assert clock.observation is not None
        hands = [state.observation(s)["hand"] for s in range(state.num_seats)]
        self.seen.append((clock.ply, clock.seat, hands, clock.observation))
        return legal[0]


def test_the_tree_gives_a_guess_of_the_hidden_hands_never_the_true_ones() -> None:
    bot = Hands()
    result = arena.play("the-tree", [bot, "random"], games=2, seed=11, bot_seed=4, time="2s")
    assert all(not o.faults for o in result.outcomes)
    assert bot.seen
    guessed_right = guessed_wrong = 0
    for outcome, seats in zip(result.outcomes, result.seatings, strict=True):
        truth = [state for _, _, state in records.replay(outcome.record)]
        mine = seats.index(0)
        for ply, seat, hands, observation in (s for s in bot.seen if s[1] == mine):
            before = truth[ply - 1]
            if before.current() != seat or before.observation(seat) != observation:
                continue  # a decision of the other game
            other = 1 - seat
            assert hands[seat] == observation["hand"] == before.observation(seat)["hand"]
            assert len(hands[other]) == len(before.observation(other)["hand"])
            if hands[other] == before.observation(other)["hand"]:
                guessed_right += 1
            else:
                guessed_wrong += 1
    assert guessed_wrong > 0 and guessed_wrong + guessed_right >= 4
    assert guessed_wrong > guessed_right


class Slow:
    def __init__(self) -> None:
        self.release = threading.Event()

    def act(self, state: State, legal: list[str], clock: Clock) -> str:
        self.release.wait(30)
        return legal[0]


def test_an_act_that_overruns_loses_on_time_and_is_abandoned() -> None:
    bot = Slow()
    try:
        result = arena.play("btt", [bot, "random"], seed=1, time="100ms")
    finally:
        bot.release.set()
    fault = result.outcomes[0].faults[0]
    assert (fault.seat, fault.reason) == (0, arena.Termination.TIME_OUT)
    assert result.outcomes[0].ranks == (2, 1)


class Crashing:
    def act(self, state: State, legal: list[str], clock: Clock) -> str:
        return str(1 // (clock.ply - clock.ply))


def test_an_exception_is_a_crash_with_its_traceback_in_the_bot_log(tmp_path: Path) -> None:
    result = arena.play("btt", [Crashing(), "random"], seed=1, time="2s", log_dir=tmp_path)
    fault = result.outcomes[0].faults[0]
    assert (fault.seat, fault.reason) == (0, arena.Termination.CRASH)
    assert "ZeroDivisionError" in fault.detail
    log = next(tmp_path.glob("0-Crashing*.log")).read_text()
    assert "Traceback" in log and "in act" in log and "ZeroDivisionError" in log


class Answers:
    """Answers every request with `answer`."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def act(self, state: State, legal: list[str], clock: Clock) -> Any:
        return self.answer


def test_an_illegal_action_is_the_illegal_action_fault() -> None:
    result = arena.play("btt", [Answers("zz-not-legal"), "random"], seed=1, time="2s")
    fault = result.outcomes[0].faults[0]
    assert (fault.seat, fault.reason) == (0, arena.Termination.ILLEGAL_ACTION)
    assert "zz-not-legal" in fault.detail


def test_an_answer_that_is_no_action_crashes_the_bot_and_says_why(tmp_path: Path) -> None:
    result = arena.play("btt", [Answers(7), "random"], seed=1, time="2s", log_dir=tmp_path)
    fault = result.outcomes[0].faults[0]
    assert fault.reason == arena.Termination.CRASH and "act returned 7 (int)" in fault.detail


@pytest.mark.parametrize("bot", [3, object(), b"random", None])
def test_what_is_no_bot_is_a_setup_error_that_says_what_a_bot_is(bot: Any) -> None:
    with pytest.raises(arena.SetupError, match=r"bots\[0\]: .* is not a bot; give a shipped bot's name .*"
                                               r"act\(state, legal, clock\)"):
        arena.play("btt", [bot, "random"])
    with pytest.raises(arena.SetupError, match="give a list of bots"):
        arena.play("btt", FirstLegal())  # type: ignore[arg-type]


def test_what_counts_as_a_python_bot_and_its_name() -> None:
    assert is_python_bot(FirstLegal()) and is_python_bot(FirstLegal) and isinstance(FirstLegal(), arena.PythonBot)
    assert not is_python_bot("random") and not is_python_bot(arena.BotSpec("x", ["x"])) and not is_python_bot(3)
    module = types.ModuleType("mine.first_legal")  # a module with a function act is a bot too
    module.act = lambda state, legal, clock: legal[0]  # type: ignore[attr-defined]
    named = FirstLegal()
    named.name = "mine"  # type: ignore[attr-defined]
    assert [bot_name(bot) for bot in (FirstLegal(), FirstLegal, module, named)] == \
        ["FirstLegal", "FirstLegal", "first_legal", "mine"]


class Meeting:
    """Its first `parties` calls, from whichever games, wait for one another."""

    barrier = threading.Barrier(2, timeout=20)

    def act(self, state: State, legal: list[str], clock: Clock) -> str:
        if clock.ply <= 1:
            self.barrier.wait()  # both tables' first decisions at once, or BrokenBarrierError (a crash)
        return legal[0]


def test_concurrency_plays_seat_rotations_at_once_and_keeps_match_order(tmp_path: Path) -> None:
    Meeting.barrier.reset()
    seen: list[str] = []
    result = arena.play("btt", [Meeting(), FirstLegal()], games=4, seed=2, time="30s", concurrency=2,
                        on_game=lambda outcome: seen.append(outcome.record.tags["Round"]), log_dir=tmp_path)
    assert all(not o.faults for o in result.outcomes)
    assert [o.record.tags["Round"] for o in result.outcomes] == ["1", "2", "3", "4"]
    assert sorted(seen) == ["1", "2", "3", "4"]
    assert result.seatings == [[0, 1], [1, 0], [0, 1], [1, 0]]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table-1", "table-2"]
    with pytest.raises(arena.SetupError, match="concurrency=0"):
        arena.play("btt", ["random", "random"], concurrency=0)


class Counted:
    """A class given as a bot: a fresh object each time its seat's bot starts."""

    made: list[Counted] = []

    def __init__(self) -> None:
        self.games = 0
        Counted.made.append(self)

    def start(self, game: str, seat: int, seats: int, options: dict[str, str]) -> None:
        self.games += 1

    def act(self, state: State, legal: list[str], clock: Clock) -> str:
        return legal[0]


def test_an_object_is_shared_by_its_seats_and_a_class_makes_one_per_seat() -> None:
    Counted.made = []
    shared = FirstLegal()
    result = arena.play("btt", [shared, shared, Counted, Counted], games=4, seed=5, time="2s")
    assert result.names == ["FirstLegal", "FirstLegal-2", "Counted", "Counted-2"]
    assert len(shared.starts) == 8  # the one object, started for each of its two seats in every game
    assert [made.games for made in Counted.made] == [4, 4]


def test_match_takes_an_object() -> None:
    paired = arena.match("btt", "random", FirstLegal(), games=2, seed=9, time="2s")
    assert paired.result.names == ["random", "FirstLegal"]
    assert paired.stats.pairs == 1 and all(not o.faults for o in paired.result.outcomes)


class Sleeps:
    """Sleeps through its first decision (wall time, no CPU), then spins if told to."""

    def __init__(self, spin_s: float = 0.0) -> None:
        self.spin_s = spin_s

    def act(self, state: State, legal: list[str], clock: Clock) -> str:
        if clock.ply <= 2:
            time.sleep(0.3)
        begun = time.thread_time()
        while time.thread_time() - begun < self.spin_s:
            pass
        return legal[0]


def test_on_the_cpu_basis_the_thread_cpu_time_of_act_is_what_counts() -> None:
    cpu = arena.TimeControl(per_move_s=0.1, basis="cpu")
    calm = arena.play("btt", [Sleeps(), "random"], seed=1, time=cpu).outcomes[0]
    assert calm.faults == [] and calm.termination == arena.Termination.NORMAL
    wall = arena.play("btt", [Sleeps(), "random"], seed=1, time=0.1).outcomes[0]
    assert [(f.seat, f.reason) for f in wall.faults] == [(0, arena.Termination.TIME_OUT)]
    busy = arena.play("btt", [Sleeps(spin_s=0.5), "random"], seed=1, time=cpu).outcomes[0]
    assert [(f.seat, f.reason) for f in busy.faults] == [(0, arena.Termination.TIME_OUT)]
    assert "CPU" in busy.faults[0].detail
