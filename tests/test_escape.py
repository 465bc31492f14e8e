"""The escape suite: cheating bots (bots/zoo/escape.py) try every attack a bot author
tried on the arena, under the default settings, and each must fail while the game still
ends as the rules say. (More of the suite: test_escape_root.py, root is not root;
test_escape_folders.py, what a bot's folder shows; test_escape_deals.py, The Tree's
deals across processes.) The bot writes what it achieved to its stderr log; the tests read
the logs and look at the machine (listeners, files, processes) themselves too.

Without a sandbox on this machine these tests are skipped, except in CI (CI=true),
where a missing sandbox is a failure."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from arena.process import proctree
from arena.process.botnames import resolve_bot
from arena.process.cgroups import CgroupSupport, cgroup_support
from arena.process.spec import BotSpec, Limits
from arena.records.files import read_record_file
from tests.helpers.cli import run_cli
from tests.helpers.escape import (
    CGROUPS_EXPECTED,
    SEATINGS,
    assert_game_sound,
    attack_report,
    daemons,
    escape,
    honest,
    play,
    skip_without_sandbox,
)
from tests.helpers.processes import processes_with

skip_without_sandbox()

needs_cgroups = pytest.mark.skipif(cgroup_support().version == 0 and not CGROUPS_EXPECTED,
                                   reason=f"no cgroups here: {cgroup_support().why}")




@pytest.mark.parametrize("seats", SEATINGS)
def test_no_network_not_even_the_hosts_loopback(tmp_path: Path, seats: int) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    connections: list[object] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connections.append(listener.accept())
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    host, port = listener.getsockname()
    try:
        result = play([escape("network", ZOO_TARGET=f"{host}:{port}"), *[honest()] * (seats - 1)], tmp_path)
    finally:
        stop.set()
        thread.join()
        listener.close()
    assert connections == []
    # Its own loopback has nothing listening: the host's listener is in another network.
    assert attack_report(tmp_path, "network") == ["connect failed: ConnectionRefusedError"]
    assert_game_sound(result)


@pytest.mark.parametrize("seats", SEATINGS)
def test_no_write_outside_its_scratch_folder(tmp_path: Path, seats: int) -> None:
    records = tmp_path / "out" / "games.pgn"
    records.parent.mkdir()
    records.write_text('[Event "real"]\n[Game "btt"]\n[Seats "2"]\n\n1. Nc3\n')
    before = records.read_bytes()
    planted = tmp_path / "escaped.txt"
    result = play([escape("write", ZOO_TARGET=str(planted), ZOO_TARGET2=str(records)), *[honest()] * (seats - 1)],
                  tmp_path / "logs", hidden=(records,))
    report = attack_report(tmp_path / "logs", "write")[0]
    assert "create failed" in report and "append failed" in report and "own-folder failed" in report
    assert "scratch succeeded" in report
    assert not planted.exists() and records.read_bytes() == before
    assert not (Path.cwd() / "escaped.txt").exists()
    assert_game_sound(result)


def test_no_reading_the_opponents_log_or_folder(tmp_path: Path) -> None:
    folder = tmp_path / "opponent"
    folder.mkdir()
    (folder / "secret_weights.bin").write_bytes(b"my secret strategy")
    opponent = BotSpec("opponent", honest().command, str(folder))
    logs = tmp_path / "logs"
    result = play([opponent, escape("read", ZOO_TARGET=str(folder / "secret_weights.bin"),
                                    ZOO_TARGET2=str(logs / "0-opponent.log"))], logs)
    assert attack_report(logs, "read") == ["read 0 failed: FileNotFoundError; read 1 failed: FileNotFoundError"]
    assert_game_sound(result)


@pytest.mark.parametrize("seats", SEATINGS)
def test_proc_shows_no_other_process_no_referee_and_no_output_file(tmp_path: Path, seats: int) -> None:
    result = play([escape("proc", ZOO_TARGET=str(os.getpid())), *[honest()] * (seats - 1)], tmp_path)
    report = attack_report(tmp_path, "proc")[0]
    pids = [int(p) for p in report.split("pids [")[1].split("]")[0].split(", ")]
    assert max(pids) < 10, "its pid namespace holds only the sandbox's own few processes"
    assert "files []" in report and "referee memory failed" in report
    assert_game_sound(result)


@pytest.mark.parametrize("seats", SEATINGS)
def test_it_cannot_kill_its_opponents_or_the_referee(tmp_path: Path, seats: int) -> None:
    result = play([escape("kill", ZOO_TARGET=str(os.getpid())), *[honest()] * (seats - 1)], tmp_path)
    report = attack_report(tmp_path, "kill")[0]
    assert "referee failed: ProcessLookupError" in report
    assert_game_sound(result)  # every other seat played to the end


@pytest.mark.parametrize("seats", SEATINGS)
def test_a_setsid_daemon_dies_with_the_game(tmp_path: Path, seats: int) -> None:
    token = f"arena-daemon-{uuid.uuid4().hex}"
    result = play([escape("daemon", ZOO_TARGET=token), *[honest()] * (seats - 1)], tmp_path, games=2)
    assert attack_report(tmp_path, "daemon") == ["daemon started and running"]
    assert_game_sound(result)
    assert processes_with(token) == []


@needs_cgroups
def test_leaving_the_cgroup_fails_and_a_fork_bomb_meets_the_process_limit(tmp_path: Path) -> None:
    result = play([honest(), escape("cgroup")], tmp_path, limits=Limits(processes=32))
    reports = attack_report(tmp_path, "cgroup")
    assert reports[0] == "join /sys/fs/cgroup/cgroup.procs failed: FileNotFoundError"  # no /sys in the sandbox
    forked = int(reports[1].removeprefix("forked "))
    assert forked < 32
    outcome = result.outcomes[0]
    assert outcome.termination == "process-limit" and outcome.ranks == (1, 2)
    assert "it tried to run more than 32 processes" in outcome.faults[0].detail


@needs_cgroups
@pytest.mark.parametrize("seats", SEATINGS)
def test_memory_across_child_processes_meets_one_limit(tmp_path: Path, seats: int) -> None:
    hog = escape("memory", ZOO_MB="48", ZOO_CHILDREN="5")  # each under the limit, all of them over
    result = play([*[honest()] * (seats - 1), hog], tmp_path, limits=Limits(memory_bytes=160 << 20))
    outcome = result.outcomes[0]
    assert outcome.termination == "memory-limit"
    assert outcome.faults[0].seat == seats - 1 and outcome.ranks[seats - 1] == seats


def test_a_shrunk_stdin_pipe_does_not_stop_the_clock(tmp_path: Path) -> None:
    """Blox on 16 x 16: requests of about 12 KB, three times the 4 KiB pipe the bot
    leaves itself; it thinks 3 s a move on a 1 s limit and must lose on time."""
    result = play([honest("blox"), escape("pipe", "blox", ZOO_SECONDS="3")], tmp_path, game="blox", per_move=1.0)
    assert attack_report(tmp_path, "pipe") == ["shrink stdin succeeded: 4096"]
    outcome = result.outcomes[0]
    assert outcome.termination == "time-out" and outcome.faults[0].seat == 1
    timed = [p.elapsed_ms for p in outcome.record.plies if p.actor == 1 and p.elapsed_ms is not None]
    assert all(ms < 1100 for ms in timed)


def test_a_deal_cannot_be_recomputed_from_the_seeds(tmp_path: Path) -> None:
    # The old scheme: ARENA_BOT_SEED = seed * 100 + bot, the deal Random(seed * 1000 + cycle).
    cheat = replace(escape("seed", "the-tree"), bot_seed=300)
    rival = replace(honest("the-tree"), bot_seed=301)
    result = play([cheat, rival], tmp_path, game="the-tree", games=2, seed=3)
    assert attack_report(tmp_path, "seed") == ["deals recomputed that hold my hand: 0"] * 2
    assert_game_sound(result)
    tags = [o.record.tags for o in result.outcomes]
    assert all(t["Seed"] == "3" and t["Cycle"] == "0" for t in tags) and "3000" not in tags[0]["BotSeeds"]


def test_a_shared_deal_is_never_played_by_a_process_that_saw_it(tmp_path: Path) -> None:
    bots = [escape("remember", "the-tree"), escape("remember", "the-tree")]
    result = play(bots, tmp_path, game="the-tree", games=4)
    for log in sorted(tmp_path.glob("*.log")):
        reports = [line for line in log.read_text().splitlines() if line.startswith("ATTACK remember:")]
        assert len(reports) == 4
        # Games 2 and 4 repeat the deals of games 1 and 3 with the seats swapped: fresh
        # processes with empty scratch folders play them.
        assert reports[1].endswith("this hand seen before: no (memory 0, scratch 0)")
        assert reports[3].endswith("this hand seen before: no (memory 0, scratch 0)")
    seeds = [(o.record.tags["Seed"], o.record.tags["Cycle"]) for o in result.outcomes]
    assert seeds[0] == seeds[1] != seeds[2] == seeds[3]
    assert len(result.pgids) == 2 * 3  # each bot: started, restarted for game 2, and for game 4


def test_a_league_of_cheats_finishes_with_honest_results(tmp_path: Path) -> None:
    token = f"arena-daemon-{uuid.uuid4().hex}"
    league = tmp_path / "cheats.toml"
    output = tmp_path / "cheats"
    league.write_text(f"""
name = "cheats"
game = "btt"
seats = 3
games_per_pairing = 3
concurrency = 2
[time]
per_move = "3s"
startup = "60s"
[[bots]]
name = "honest"
command = "random"
[[bots]]
name = "writer"
command = "zoo/escape"
env = {{ ZOO_ATTACK = "write", ZOO_TARGET = "{output}/league.sqlite", ZOO_TARGET2 = "{output}/league.pgn" }}
[[bots]]
name = "prober"
command = "zoo/escape"
env = {{ ZOO_ATTACK = "proc", ZOO_TARGET = "1" }}
[[bots]]
name = "daemon"
command = "zoo/escape"
env = {{ ZOO_ATTACK = "daemon", ZOO_TARGET = "{token}" }}
""")
    result = run_cli("league", "run", str(league), "-q")
    assert result.exit_code == 0, result.output
    records = read_record_file(output / "league.pgn")
    assert len(records) == 4 * 3 and all(r.termination == "normal" for r in records)
    assert run_cli("verify", str(output / "league.pgn")).exit_code == 0
    logs = "".join(p.read_text() for p in (output / "logs").rglob("*.log"))
    assert "ATTACK write: create failed" in logs and "append failed" in logs
    assert "files []" in logs
    assert processes_with(token) == []


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_killing_or_interrupting_the_arena_leaves_no_bot_process(tmp_path: Path, sig: signal.Signals) -> None:
    token = f"arena-daemon-{uuid.uuid4().hex}"
    bot = (f"env ZOO_ATTACK=daemon ZOO_TARGET={token} ZOO_SECONDS=50 {sys.executable} "
           f"{resolve_bot('zoo/escape', 'btt').command[-1]}")  # its game lasts until the arena is stopped
    said = tmp_path / "cli.txt"
    with said.open("w") as output:
        cli = subprocess.Popen([sys.executable, "-m", "arena", "play", "btt", "random", bot, "--time-per-move", "60s",
                                "--log-dir", str(tmp_path)], stdout=output, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not daemons(token):
        time.sleep(0.05)
    assert daemons(token), f"the daemon never started: {said.read_text()[-2000:]}"
    os.kill(cli.pid, sig)
    cli.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and processes_with(token):
        time.sleep(0.05)
    assert processes_with(token) == []


def test_a_bot_cannot_fill_the_disk_its_folders_are_small_tmpfs(tmp_path: Path) -> None:
    result = play([escape("disk"), honest()], tmp_path, limits=Limits(scratch_bytes=24 << 20))
    report = attack_report(tmp_path, "disk")[0]
    filled = [int(part.split(" filled ")[1].split(" MiB")[0]) for part in report.split("; ")]
    assert len(filled) == 3 and all(mib <= 24 for mib in filled), report
    assert report.count("OSError") == 3  # refused: no space left on its own tmpfs
    assert_game_sound(result)


def test_without_cgroups_its_tmpfs_together_hold_to_its_memory_limit(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """An ordinary user without a delegated cgroup: no limit counts tmpfs pages, so the
    three (of 512 MiB each by default) are sized to share the memory limit. Before,
    600 MiB were held under --memory-mb 128."""
    monkeypatch.setattr(proctree, "cgroup_support", lambda: CgroupSupport(0, {}, "none, for this test"))
    result = play([escape("disk"), honest()], tmp_path, limits=Limits(memory_bytes=96 << 20))
    report = attack_report(tmp_path, "disk")[0]
    filled = [int(part.split(" filled ")[1].split(" MiB")[0]) for part in report.split("; ")]
    assert len(filled) == 3 and sum(filled) <= 96, report
    assert_game_sound(result)


def test_scratch_and_tmp_are_emptied_between_games_without_following_links(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    canary.mkdir()
    (canary / "keep.txt").write_text("the host's file")
    result = play([escape("scratch", ZOO_TARGET=str(canary)), honest()], tmp_path / "logs", games=3)
    reports = attack_report(tmp_path / "logs", "scratch")
    # One process serves the three games (its game count goes on), and finds its
    # folders empty at the start of each.
    assert reports == [f"game {n} of this process: notes found in 0 folders" for n in (1, 2, 3)]
    assert (canary / "keep.txt").read_text() == "the host's file"
    assert_game_sound(result)


def test_unsandboxed_folders_are_emptied_too(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    canary.mkdir()
    (canary / "keep.txt").write_text("the host's file")
    result = play([escape("scratch", ZOO_TARGET=str(canary)), honest()], tmp_path / "logs", games=2,
                  limits=Limits(sandbox=False))
    reports = attack_report(tmp_path / "logs", "scratch")
    assert reports == [f"game {n} of this process: notes found in 0 folders" for n in (1, 2)]
    assert (canary / "keep.txt").exists()
    assert_game_sound(result)


@needs_cgroups
def test_processes_spinning_while_it_decides_get_no_more_than_their_cores(tmp_path: Path) -> None:
    """Four processes spin for 1.5 s during one decision: with a quota of a quarter of a
    core the tree's CPU time stays near a quarter of the wall time (unlimited, each would
    take what the machine has free: one to two cores)."""
    result = play([escape("spin", ZOO_CHILDREN="4", ZOO_SECONDS="1.5"), honest()], tmp_path,
                  limits=Limits(cpus=0.25))
    assert attack_report(tmp_path, "spin") == ["spun 4 processes for 1.5 s"]
    spun = next(p for p in result.outcomes[0].record.plies if p.actor == 0)
    assert spun.cpu_ms is not None and spun.elapsed_ms is not None and spun.elapsed_ms >= 1500
    assert spun.cpu_ms <= spun.elapsed_ms * 0.25 * 1.2 + 100, (spun.cpu_ms, spun.elapsed_ms)
    assert_game_sound(result)


def test_a_bot_folder_inside_anothers_is_hidden_from_it(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    (inner / "weights.bin").write_bytes(b"inner's secret")
    cheat = escape("read", ZOO_TARGET=str(inner / "weights.bin"))
    cheat.cwd = str(outer)
    opponent = BotSpec("inner", honest().command, str(inner))
    result = play([cheat, opponent], tmp_path / "logs")
    assert attack_report(tmp_path / "logs", "read") == ["read 0 failed: FileNotFoundError"]
    assert_game_sound(result)


def test_an_unsandboxed_bot_does_not_inherit_the_chance_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SECRET", "00ff")
    result = play([escape("env"), honest()], tmp_path, limits=Limits(sandbox=False))
    assert attack_report(tmp_path, "env") == ["secrets []"]
    assert_game_sound(result)


def test_a_shipped_bot_never_sees_the_folder_the_user_is_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "private.txt").write_text("the user's own file")
    monkeypatch.chdir(home)
    result = play([escape("read", ZOO_TARGET=str(home / "private.txt")), honest()], tmp_path / "logs")
    assert attack_report(tmp_path / "logs", "read") == ["read 0 failed: FileNotFoundError"]
    assert_game_sound(result)


def test_a_bot_in_a_shared_folder_sees_its_own_files_there_not_the_folder(tmp_path: Path) -> None:
    """A bot whose script lies directly in /tmp (or which runs from /tmp) is shown its
    script there, never everyone's /tmp: its /tmp stays its own small tmpfs."""
    neighbour = Path("/tmp") / f"arena-neighbour-{uuid.uuid4().hex}.txt"
    script = Path("/tmp") / f"arena-escape-{uuid.uuid4().hex}.py"
    script.write_text(Path(resolve_bot("zoo/escape", "btt").command[-1]).read_text())
    neighbour.write_text("someone else's file")
    try:
        cheat = BotSpec("cheat", [sys.executable, str(script)], "/tmp",
                        {"ZOO_ATTACK": "read", "ZOO_TARGET": str(neighbour)})
        result = play([cheat, honest()], tmp_path, games=2)
        assert attack_report(tmp_path, "read") == ["read 0 failed: FileNotFoundError"]
        assert_game_sound(result)
        assert len(result.pgids) == 2  # its /tmp is its own tmpfs: emptied between games, no restart
    finally:
        script.unlink()
        neighbour.unlink()
