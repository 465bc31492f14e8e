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

from arena.process.bot_process import process_table, processes_in_group
from arena.process.botnames import resolve_bot
from arena.process.cgroups import cgroup_support
from arena.process.spec import BotSpec, Limits
from arena.records.record import Ply
from arena.records.replay import state_at, verify
from arena.referee.player import Timing
from arena.timecontrol import TimeControl
from tests.helpers.botmatch import PlayedMatch, Settings, run_match
from tests.helpers.escape import CGROUPS_EXPECTED

ROOT = Path(__file__).resolve().parent.parent


needs_cgroups = pytest.mark.skipif(cgroup_support().version == 0 and not CGROUPS_EXPECTED,
                                   reason="limits per bot tree need cgroups")


def zoo(name: str, ply: int = 3, **env: str) -> BotSpec:
    spec = resolve_bot(f"zoo/{name}", "btt")
    spec.env.update({"ZOO_PLY": str(ply), **env})
    return spec


def random_bot() -> BotSpec:
    return resolve_bot("random", "btt")


ON_THE_WALL = frozenset({"zoo/hang", "zoo/slow", "zoo/deaf", "zoo/fork_loop", "setsid-children"})
"""The bots whose point is a time-out on the wall clock (sleeping, or never reading)."""


def run(specs: list[BotSpec], games: int = 1, per_move: float = 0.5, tmp: Path | None = None,
        limits: Limits = Limits(), startup: float = 30.0) -> PlayedMatch:
    """A match of `specs` at `per_move` a decision: on the wall clock for the bots of
    ON_THE_WALL, on the CPU basis for every other (a time control of its own), so that a
    machine too loaded to run a bot for half a second times out none of those; and a
    start-up limit no loaded machine reaches."""
    for spec in specs:
        if spec.name not in ON_THE_WALL and spec.time_control is None:
            spec.time_control = TimeControl(per_move_s=per_move, basis="cpu")
    return run_match("btt", specs, TimeControl(per_move_s=per_move), seed=1, games=games, log_dir=tmp, limits=limits,
                     timing=Timing(startup_s=startup, grace_s=0.05))


def assert_no_leftovers(result: PlayedMatch) -> None:
    assert result.pgids, "the match started no process"
    for pgid in result.pgids:
        assert processes_in_group(pgid) == [], f"process group {pgid} still has processes"


def zombie_children() -> set[int]:
    """Our exited children nobody reaped (this test process is the referee, a subreaper)."""
    me = os.getpid()
    return {pid for pid, (parent, _) in process_table().items()
            if parent == me and Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] == b"Z"}


@pytest.mark.parametrize(("bot", "reason"), [("random", "normal"), ("crash", "crash"), ("hang", "time-out")])
def test_no_sandbox_is_left_a_zombie_of_the_referee(bot: str, reason: str) -> None:
    """Each sandbox's init leads its own session; when the sandbox ends (quit, crash,
    kill) the referee adopts and must reap it, or a night's league piles up zombies."""
    before = zombie_children()
    spec = random_bot() if bot == "random" else zoo(bot, ply=1)
    result = run([spec, random_bot()], games=2, per_move=0.3)
    assert {o.termination for o in result.outcomes} == {reason}
    assert zombie_children() - before == set()


SETSID_CHILDREN_BOT = """
import json, os, sys, time
for _ in range(5):  # children in sessions of their own: outside the bot's process group
    if os.fork() == 0:
        os.setsid()
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)", sys.argv[1]])
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "setsid-children"}), flush=True)
    elif message["type"] == "request":
        time.sleep(3600)  # never answers: killed for its time
"""


def test_where_no_cgroup_holds_a_bot_its_setsid_children_die_with_it(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Unsandboxed and without cgroups, the children a killed bot started in sessions of
    their own are adopted by the referee (a subreaper): it kills and reaps them, rather
    than leaving them running or waiting on them."""
    import dataclasses
    import uuid

    import arena.process.proctree as proctree
    from tests.helpers.processes import processes_with

    no_cgroups = dataclasses.replace(cgroup_support(), version=0)
    monkeypatch.setattr(proctree, "cgroup_support", lambda: no_cgroups)
    token = f"arena-setsid-child-{uuid.uuid4().hex}"
    script = tmp_path / "setsid_children.py"
    script.write_text(SETSID_CHILDREN_BOT)
    spec = BotSpec("setsid-children", [sys.executable, str(script), token])
    result = run([spec, random_bot()], per_move=0.3, limits=Limits(sandbox=False))
    assert result.outcomes[0].termination == "time-out"
    try:
        assert processes_with(token) == []
    finally:
        for pid in processes_with(token):
            os.kill(pid, signal.SIGKILL)


def test_two_random_bots_play_a_full_game() -> None:
    result = run([random_bot(), random_bot()])
    outcome = result.outcomes[0]
    assert outcome.termination == "normal"
    assert len(outcome.record.plies) == 2 + 30
    final = state_at(outcome.record, len(outcome.record.plies))
    assert final.is_terminal() and outcome.ranks == final.result().ranks
    assert outcome.scores == final.result().scores
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
        ("deaf", "time-out"),
        ("close_stdin", "closed-pipe"),
    ],
)
def test_misbehaving_bot_forfeits_with_the_right_reason(bot: str, reason: str, tmp_path: Path) -> None:
    # A start-up limit the silent bot reaches soon, and the random bot never does.
    result = run([random_bot(), zoo(bot)], per_move=0.5, tmp=tmp_path, startup=5.0 if bot == "silent" else 30.0)
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


@needs_cgroups  # per-process limits: tests/test_per_process_limits.py
def test_fork_loop_is_held_by_the_process_limit(tmp_path: Path) -> None:
    result = run([random_bot(), zoo("fork_loop", ply=1)], per_move=0.5, tmp=tmp_path, limits=Limits(processes=12))
    assert result.outcomes[0].termination == "process-limit"
    log = next(tmp_path.glob("1-*.log")).read_text()
    forked = int(log.split("forked ")[1].split()[0])
    assert forked < 12
    assert_no_leftovers(result)


@needs_cgroups  # per-process limits: tests/test_per_process_limits.py
def test_memory_limit_stops_a_hog_that_plays_on_under_the_default_limit(tmp_path: Path) -> None:
    limited = run([random_bot(), zoo("memory_hog", ply=2)], tmp=tmp_path, limits=Limits(memory_bytes=200 << 20),
                  per_move=5.0)
    outcome = limited.outcomes[0]
    assert outcome.termination == "memory-limit" and outcome.faults[0].seat == 1
    assert "it went over its memory limit (200 MiB for all its processes)" in outcome.faults[0].detail
    free = run([random_bot(), zoo("memory_hog", ply=2)], per_move=5.0)
    assert free.outcomes[0].termination == "normal"
    assert_no_leftovers(limited)
    assert_no_leftovers(free)


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
    scores = state_at(outcome.record, len(outcome.record.plies)).result().scores
    # The two seats left keep the rules' order between them: ahead on score, ahead in rank.
    expected = (1, 1) if scores[0] == scores[2] else (1, 2) if scores[0] > scores[2] else (2, 1)
    assert (outcome.ranks[0], outcome.ranks[2]) == expected
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


def test_a_slow_real_bot_is_timed_by_the_referee(tmp_path: Path) -> None:
    """End to end with a real process (the clock logic itself is tested under MockClock
    in test_decision.py): a 0.2 s answer is measured at 0.2 s or a little more, within a
    generous limit."""
    result = run_match("btt", [random_bot(), zoo("slow", ply=2, ZOO_SECONDS="0.2")], TimeControl(per_move_s=5.0),
                       seed=1, games=1, log_dir=tmp_path, timing=Timing(startup_s=30.0, grace_s=0.05))
    outcome = result.outcomes[0]
    assert outcome.termination == "normal"
    slow_answer = outcome.record.plies[3].elapsed_ms
    assert slow_answer is not None and 200 <= slow_answer < 5000
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


def bot_groups_of(pid: int) -> set[int]:
    """The process groups led by children of `pid`: the bots an arena process started
    (each bot leads its own group), found through /proc and not by name, so another
    run of the suite on the machine cannot confuse the test."""
    return {child for child, (parent, group) in process_table().items() if parent == pid and group == child}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupting_the_cli_leaves_no_bot(sig: signal.Signals, tmp_path: Path) -> None:
    env = {**os.environ, "ZOO_PLY": "1"}
    cli = subprocess.Popen(
        [sys.executable, "-m", "arena", "play", "btt", "random", "zoo/hang", "--time-per-move", "60s",
         "--out", str(tmp_path / "g.pgn"), "--log-dir", str(tmp_path)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    groups: set[int] = set()
    while time.monotonic() < deadline and len(groups) < 2:
        groups |= bot_groups_of(cli.pid)
        time.sleep(0.05)
    assert len(groups) == 2, "the two bots never started"
    time.sleep(0.3)  # any moment will do: an interrupt at any point must leave no bot
    cli.send_signal(sig)
    _, err = cli.communicate(timeout=30)
    assert cli.returncode != 0
    assert b"interrupted" in err
    for group in groups:
        assert processes_in_group(group) == [], f"bot group {group} outlived the arena"


def test_a_solo_game_is_played_to_its_end_and_a_solo_fault_loses() -> None:
    settings: Settings = {"seed": 3, "games": 1, "timing": Timing(startup_s=30.0, grace_s=0.05)}
    control = TimeControl(per_move_s=2, basis="cpu")
    solo = run_match("the-tree", [resolve_bot("random", "the-tree")], control, **settings)
    outcome = solo.outcomes[0]
    assert outcome.termination == "normal" and len(outcome.record.plies) > 9
    assert outcome.ranks in ((1,), (2,)) and verify(outcome.record) == []
    crash = resolve_bot("zoo/crash", "the-tree")
    crash.env["ZOO_PLY"] = "1"
    failed = run_match("the-tree", [crash], control, **settings)
    assert failed.outcomes[0].termination == "crash" and failed.outcomes[0].ranks == (2,)
    assert_no_leftovers(failed)


@pytest.mark.parametrize("sandbox", [True, False])
def test_a_bot_that_dies_mid_request_while_its_child_holds_its_pipes_is_found_at_once(sandbox: bool) -> None:
    """A read under a game's deadline scope has no scope of its own to cancel: the exit
    watcher wakes it, so the crash is found when it happens, not at the 60 s limit."""
    begin = time.monotonic()
    result = run([random_bot(), zoo("child_keeps_pipes")], per_move=60.0, limits=Limits(sandbox=sandbox))
    outcome = result.outcomes[0]
    assert outcome.termination == "crash", outcome.record.tags.get("TerminationDetail")
    assert time.monotonic() - begin < 30  # about a second on an idle machine; 60 s without the wake-up
    assert_no_leftovers(result)
