"""The referee against well- and misbehaving bots: the right forfeit and reason, the
referee survives, and no process of any bot's group is left afterwards."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from arena.games import get_game
from arena.records.record import Ply
from arena.records.replay import verify
from arena.referee.botnames import resolve_bot
from arena.referee.match import MatchConfig, MatchResult, play_match
from arena.referee.player import Timing
from arena.referee.process import PIDS_CGROUPS, processes_in_group
from arena.referee.spec import BotSpec, Limits
from arena.referee.timecontrol import TimeControl

ROOT = Path(__file__).resolve().parent.parent


def zoo(name: str, ply: int = 3, **env: str) -> BotSpec:
    spec = resolve_bot(f"zoo/{name}", "btt")
    spec.env.update({"ZOO_PLY": str(ply), **env})
    return spec


def random_bot() -> BotSpec:
    return resolve_bot("random", "btt")


def run(specs: list[BotSpec], games: int = 1, per_move: float = 0.5, tmp: Path | None = None,
        limits: Limits = Limits(), startup: float = 3.0) -> MatchResult:
    config = MatchConfig(
        get_game("btt"), {}, TimeControl(per_move_s=per_move), seed=1, games=games,
        log_dir=tmp, limits=limits, timing=Timing(startup_s=startup, grace_s=0.05),
    )
    return trio.run(play_match, config, specs)


def assert_no_leftovers(result: MatchResult) -> None:
    assert result.pgids, "the match started no process"
    for pgid in result.pgids:
        assert processes_in_group(pgid) == [], f"process group {pgid} still has processes"


def test_two_random_bots_play_a_full_game() -> None:
    result = run([random_bot(), random_bot()])
    outcome = result.outcomes[0]
    assert outcome.termination == "normal"
    assert len(outcome.record.plies) == 2 + 30
    assert sorted(outcome.ranks) in ([1, 2], [1, 1])
    assert verify(outcome.record) == []
    assert_no_leftovers(result)


@pytest.mark.parametrize(
    ("bot", "reason"),
    [
        ("crash", "crash"),
        ("hang", "time-out"),
        ("slow", "time-out"),
        ("garbage", "malformed"),
        ("illegal", "illegal-action"),
        ("exit_start", "startup-failure"),
        ("silent", "startup-timeout"),
        ("huge_line", "oversized-line"),
        ("child_keeps_pipes", "crash"),
        ("fork_loop", "time-out"),
        ("wrong_type", "unexpected-message"),
        ("unexpected", "unexpected-message"),
        ("close_stdout", "closed-pipe"),
    ],
)
def test_misbehaving_bot_forfeits_with_the_right_reason(bot: str, reason: str, tmp_path: Path) -> None:
    result = run([random_bot(), zoo(bot)], per_move=0.4, tmp=tmp_path, startup=1.0)
    outcome = result.outcomes[0]
    assert outcome.termination == reason, outcome.record.tags.get("TerminationDetail")
    assert outcome.ranks == (1, 2)
    assert [f.seat for f in outcome.faults] == [1]
    assert "seat 1" in outcome.record.tags["TerminationDetail"]
    assert verify(outcome.record) == []
    assert_no_leftovers(result)


def test_stderr_flood_is_capped_and_the_game_is_normal(tmp_path: Path) -> None:
    cap = 1 << 16
    result = run([random_bot(), zoo("stderr_flood")], tmp=tmp_path, limits=Limits(stderr_bytes=cap), per_move=2.0)
    assert result.outcomes[0].termination == "normal"
    logs = sorted(tmp_path.glob("1-*.log"))
    assert logs and logs[0].stat().st_size <= cap + 200
    assert_no_leftovers(result)


def test_fork_loop_is_held_by_the_process_limit(tmp_path: Path) -> None:
    if os.geteuid() == 0 and not os.access(PIDS_CGROUPS, os.W_OK):
        pytest.skip("root without a writable pids cgroup: no process limit can bind")
    result = run([random_bot(), zoo("fork_loop", ply=1)], per_move=0.5, tmp=tmp_path, limits=Limits(processes=12))
    assert result.outcomes[0].termination == "time-out"
    log = next(tmp_path.glob("1-*.log")).read_text()
    forked = int(log.split("forked ")[1].split()[0])
    assert forked < 12
    assert_no_leftovers(result)


def test_crashed_bot_is_restarted_for_the_next_game() -> None:
    result = run([random_bot(), zoo("crash", ply=2)], games=2)
    assert [o.termination for o in result.outcomes] == ["crash", "crash"]
    # Seats rotate: the crashing bot sits in seat 1, then seat 0; it loses both.
    assert result.outcomes[0].ranks == (1, 2)
    assert result.outcomes[1].ranks == (2, 1)
    assert len(result.pgids) == 3  # random once, crash bot twice
    assert_no_leftovers(result)


def test_three_seats_remove_the_faulting_seat_and_finish() -> None:
    result = run([random_bot(), zoo("illegal", ply=2), random_bot()])
    outcome = result.outcomes[0]
    assert outcome.termination == "illegal-action"
    assert len(outcome.record.plies) == 3 + 45
    assert outcome.ranks[1] == 3
    assert sorted(outcome.ranks[s] for s in (0, 2)) in ([1, 2], [1, 1])
    forced = [p for p in outcome.record.plies if p.forced]
    assert len(forced) == 15  # its setup ply was its own, every pyramid forced
    assert verify(outcome.record) == []
    assert_no_leftovers(result)


def test_two_faults_in_three_seats_rank_the_first_faulter_last() -> None:
    result = run([zoo("illegal", ply=2), zoo("crash", ply=4), random_bot()])
    outcome = result.outcomes[0]
    assert outcome.ranks == (3, 2, 1)
    assert [f.seat for f in outcome.faults] == [0, 1]
    assert_no_leftovers(result)


@pytest.mark.parametrize(
    ("base", "increment", "ply", "termination"),
    [(0.15, 0.0, 1, "time-out"), (0.6, 0.0, 1, "normal"), (0.15, 0.0, 3, "time-out"), (0.15, 0.1, 3, "normal")],
)
def test_game_clock_runs_down_and_flags(
    base: float, increment: float, ply: int, termination: str, tmp_path: Path
) -> None:
    """0.2 s spent at the bot's k-th request: over a 0.15 s clock, within a 0.6 s one,
    and within 0.15 s when two increments of 0.1 s came before."""
    config = MatchConfig(
        get_game("btt"), {}, TimeControl(per_move_s=None, base_s=base, increment_s=increment), seed=1,
        games=1, log_dir=tmp_path, timing=Timing(startup_s=3.0, grace_s=0.02),
    )
    slow = zoo("slow", ply=ply, ZOO_SECONDS="0.2")
    result = trio.run(play_match, config, [random_bot(), slow])
    outcome = result.outcomes[0]
    assert outcome.termination == termination
    if termination == "normal":
        slow_answer = outcome.record.plies[2 * ply - 1].elapsed_ms
        assert slow_answer is not None and 200 <= slow_answer < 400
    assert_no_leftovers(result)


def test_an_exception_in_the_referee_voids_that_game_alone_and_kills_its_bots(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.referee import referee

    seen: list[int] = []
    original = referee.Referee._record
    exploded: list[bool] = []

    def explode(self: referee.Referee, ply: Ply) -> None:
        seen.extend(p.channel.pgid for p in self.players if p.channel and p.channel.pgid)
        if len(self.plies) == 5 and not exploded:
            exploded.append(True)
            raise RuntimeError("bug in the referee")
        original(self, ply)

    monkeypatch.setattr(referee.Referee, "_record", explode)
    result = run([random_bot(), random_bot()], games=2)
    void, played = result.outcomes
    assert void.void and void.termination == "infrastructure-error"
    assert void.faults == [] and void.error is not None and "RuntimeError: bug in the referee" in void.error
    assert len(void.record.plies) == 5 and "bug in the referee" in void.record.tags["TerminationDetail"]
    assert played.termination == "normal" and verify(played.record) == []
    assert len(result.pgids) == 4  # both bots were killed with the void game and started afresh
    for pgid in set(seen):
        assert processes_in_group(pgid) == []
    assert_no_leftovers(result)


def _bot_processes(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if marker in line and "ps -eo" not in line]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupting_the_cli_leaves_no_bot(sig: signal.Signals, tmp_path: Path) -> None:
    marker = "zoo/hang.py"
    before = set(_bot_processes(marker))
    env = {**os.environ, "ZOO_PLY": "1"}
    cli = subprocess.Popen(
        [sys.executable, "-m", "arena", "play", "btt", "random", "zoo/hang", "--time-per-move", "60",
         "--out", str(tmp_path / "g.pgn"), "--log-dir", str(tmp_path)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (set(_bot_processes(marker)) - before):
        time.sleep(0.05)
    assert set(_bot_processes(marker)) - before, "the hanging bot never started"
    time.sleep(0.3)
    cli.send_signal(sig)
    _, err = cli.communicate(timeout=10)
    assert cli.returncode != 0
    assert b"interrupted" in err
    time.sleep(0.1)
    assert set(_bot_processes(marker)) - before == set()


def test_a_solo_game_is_played_to_its_end_and_a_solo_fault_loses() -> None:
    config = MatchConfig(get_game("the-tree"), {}, TimeControl(per_move_s=2), seed=3, games=1,
                         timing=Timing(startup_s=3.0, grace_s=0.05))
    solo = trio.run(play_match, config, [resolve_bot("random", "the-tree")])
    outcome = solo.outcomes[0]
    assert outcome.termination == "normal" and len(outcome.record.plies) > 9
    assert outcome.ranks in ((1,), (2,)) and verify(outcome.record) == []
    crash = resolve_bot("zoo/crash", "the-tree")
    crash.env["ZOO_PLY"] = "1"
    failed = trio.run(play_match, config, [crash])
    assert failed.outcomes[0].termination == "crash" and failed.outcomes[0].ranks == (2,)
    assert_no_leftovers(failed)
