"""Leagues over a Dask cluster: the same stored games as on one machine; a worker killed
mid-league costs only time (every game stored once, no fault); the league command
killed with SIGKILL resumes; a bot's folder reaches a worker that cannot see it; and
the commands a user types (`dask scheduler`, `dask worker`, `arena league run
--cluster FILE`) work together."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import records
from arena.cluster.executor import ClusterError, DaskExecutor
from arena.process.bot_process import process_table
from arena.process.sandbox import find_bwrap
from arena.records.files import read_record_file
from tests.helpers.cli import run_cli
from tests.helpers.deal_memory import remembered, shared, timed_league

FIRST = """
import json, sys, time
pause = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "first"}), flush=True)
    elif message["type"] == "request":
        time.sleep(pause)
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    elif message["type"] == "quit":
        break
"""
LAST = FIRST.replace('message["legal"][0]', 'message["legal"][-1]').replace('"first"', '"last"')


def write_league(folder: Path, games: int = 4, pause: float = 0.0, extra: str = "") -> Path:
    """A 3-bot league of The Tree (deals: chance on the workers) between deterministic
    bots, two of them in a folder of their own that must travel to the workers."""
    bots = folder / "mybots"
    bots.mkdir(exist_ok=True)
    (bots / "first.py").write_text(FIRST)
    (bots / "last.py").write_text(LAST)
    path = folder / "night.toml"
    path.write_text(f"""
name = "night"
game = "the-tree"
games_per_pairing = {games}
concurrency = 2
{extra}
[time]
per_move = "5s"
[[bots]]
name = "first"
command = ["first.py", "{pause}"]
cwd = "mybots"
[[bots]]
name = "last"
command = ["last.py", "{pause}"]
cwd = "mybots"
[[bots]]
name = "greedy"
command = "greedy"
""")
    return path


def stripped_records(path: Path) -> dict[str, str]:
    """Each game's record by round, without its move comments and line breaks (thinking
    times differ from run to run, more so on a loaded machine, and their digits move
    where the lines wrap; everything else must not)."""
    return {r.tags["Round"]: " ".join(re.sub(r"\{[^}]*\}", " ", records.write(r)).split())
            for r in read_record_file(path)}


def stored(database: Path) -> tuple[int, int, list[str]]:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        scheduled = db.execute("SELECT COUNT(*) FROM schedule").fetchone()[0]
        faults = [f for (f,) in db.execute("SELECT faults FROM games") if f != "[]"]
    return games, scheduled, faults


def descendants(root: int) -> list[int]:
    table = process_table()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    out, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), []):
            out.append(child)
            stack.append(child)
    return out


def alive(pids: list[int]) -> list[int]:
    """Those of `pids` still running; zombies we adopted (this test process may be a
    subreaper) are reaped on the way."""
    running = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state == b"Z":
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            continue
        running.append(pid)
    return running


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ARENA_SECRET", "0123456789abcdef")
    return "0123456789abcdef"


def test_a_cluster_stores_the_same_games_as_one_machine(tmp_path: Path, secret: str) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    local = run_cli("league", "run", str(write_league(here)), "-q")
    assert local.exit_code == 0, local.output
    cluster = run_cli("league", "run", str(write_league(there)), "-q", "--cluster", "local:2")
    assert cluster.exit_code == 0, cluster.output
    assert "worker thread(s)" in cluster.output
    one, many = stripped_records(here / "night" / "league.pgn"), stripped_records(there / "night" / "league.pgn")
    assert len(one) == 12 and one == many
    assert run_cli("verify", str(there / "night" / "league.pgn")).exit_code == 0


def test_a_cluster_never_plays_one_deal_at_two_tables_with_one_bot(tmp_path: Path, secret: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The Tree, 3 seats and 4 bots (every two tables share two bots) on 2 workers: a
    table's run of a cycle is submitted only once no task holding one of its bots on
    that cycle's seed is left (its bots reaped), so the timed recording bots' logs on
    the workers show no two games or processes of one bot on one deal at once."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("ARENA_CACHE", str(cache))
    path = timed_league(tmp_path, 3, 4, 6, 2, extra='[cluster]\naddress = "local:2"')
    result = run_cli("league", "run", str(path), "-q")
    assert result.exit_code == 0, result.output
    records = read_record_file(tmp_path / "timed" / "league.pgn")
    assert len(records) == 24 and all(r.termination == "normal" for r in records)
    logs = sorted((cache / "logs").glob("*/*.log"))
    sharing, memory = shared(logs, records), remembered(logs, records)
    assert sharing.games == 24 * 3
    assert (sharing.overlapping_games, sharing.overlapping_processes, sharing.tiles) == (0, 0, 0), sharing
    assert (memory.remembering, memory.tiles) == (0, 0), memory


def _run_league(folder: Path, *more: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "arena", "league", "run", "night.toml", "-q", *more], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _wait_for(condition: object, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def test_a_worker_killed_mid_league_costs_only_time(tmp_path: Path, secret: str) -> None:
    write_league(tmp_path, games=6, pause=0.02)
    league = _run_league(tmp_path, "--cluster", "local:2")
    try:
        def playing() -> list[int]:
            return [p for p in descendants(league.pid) if "arena.cluster.play_unit" in command_line(p)]

        assert _wait_for(lambda: playing() and (tmp_path / "night" / "league.sqlite").exists())
        assert _wait_for(lambda: stored(tmp_path / "night" / "league.sqlite")[0] >= 2)
        worker = process_table()[playing()[0]][0]  # the worker process that runs the unit
        os.kill(worker, signal.SIGKILL)
        output, _ = league.communicate(timeout=120)
    finally:
        league.kill()
    assert league.returncode == 0, output
    games, scheduled, faults = stored(tmp_path / "night" / "league.sqlite")
    assert games == scheduled == 18 and faults == []
    records = read_record_file(tmp_path / "night" / "league.pgn")
    assert sorted(r.tags["Round"] for r in records) == sorted({r.tags["Round"] for r in records})  # each once


def test_the_league_command_killed_with_sigkill_resumes(tmp_path: Path, secret: str) -> None:
    write_league(tmp_path, games=6, pause=0.02)
    league = _run_league(tmp_path, "--cluster", "local:2")
    database = tmp_path / "night" / "league.sqlite"
    assert _wait_for(lambda: database.exists() and stored(database)[0] >= 3)
    family = descendants(league.pid)
    os.kill(league.pid, signal.SIGKILL)
    league.communicate()
    # Its workers, their unit processes and the bots end without it.
    assert _wait_for(lambda: not alive(family), 30), [command_line(p) for p in alive(family)]
    before = stored(database)[0]
    resumed = _run_league(tmp_path, "--cluster", "local:2")
    output, _ = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, output
    assert f"resuming night: {before} of 18" in output
    games, scheduled, faults = stored(database)
    assert games == scheduled == 18 and faults == []
    assert len(read_record_file(tmp_path / "night" / "league.pgn")) == 18


def dask_command() -> str:
    dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
    assert dask is not None
    return dask


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in reversed(processes):
        process.terminate()
    for process in reversed(processes):
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


QUIET = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[tuple[Path, list[subprocess.Popen[bytes]]]]:
    """`dask scheduler` and two `dask worker`s on 127.0.0.1, each in a folder of its own;
    neither can see the league's folder at all (a bubblewrap mount namespace hides it),
    so the bots' folder can only reach them as a package."""
    dask = dask_command()
    scheduler_file = tmp_path / "cluster.json"
    league_folder = tmp_path / "league"
    league_folder.mkdir()
    started: list[subprocess.Popen[bytes]] = []
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    try:
        started.append(subprocess.Popen([dask, "scheduler", "--scheduler-file", str(scheduler_file), "--host",
                                         "127.0.0.1", "--port", "0", "--dashboard-address", ":0"], **quiet))  # type: ignore[call-overload]
        assert _wait_for(scheduler_file.exists, 30)
        for k in range(2):
            home = tmp_path / f"worker-{k}"
            home.mkdir()
            worker = [dask, "worker", "--scheduler-file", str(scheduler_file), "--nworkers", "1", "--nthreads", "1",
                      "--host", "127.0.0.1", "--no-dashboard", "--local-directory", str(home)]
            env = {**os.environ, "ARENA_CACHE": str(home / "cache")}
            bwrap = find_bwrap()
            if bwrap is not None:
                worker = [bwrap, "--dev-bind", "/", "/", "--tmpfs", str(league_folder), "--die-with-parent", "--",
                          *worker]
            started.append(subprocess.Popen(worker, cwd=home, env=env, **quiet))  # type: ignore[call-overload]
        from distributed import Client

        with Client(scheduler_file=str(scheduler_file), timeout=30) as client:  # type: ignore[no-untyped-call]
            client.wait_for_workers(2, timeout=60)
        yield scheduler_file, started
    finally:
        stop(started)


def test_dask_scheduler_and_workers_play_a_league_from_its_scheduler_file(
        tmp_path: Path, secret: str, dask_cluster: tuple[Path, list[subprocess.Popen[bytes]]]) -> None:
    scheduler_file, processes = dask_cluster
    folder = tmp_path / "league"
    write_league(folder, games=4, extra=f'[cluster]\naddress = "{scheduler_file}"\n')
    league = subprocess.run([sys.executable, "-m", "arena", "league", "run", "night.toml", "-q"], cwd=folder,
                            capture_output=True, text=True, timeout=180)
    assert league.returncode == 0, league.stdout + league.stderr
    assert "2 worker thread(s)" in league.stdout
    games, scheduled, faults = stored(folder / "night" / "league.sqlite")
    assert games == scheduled == 12 and faults == []
    # The workers cannot see the league's folder: they played from the package they were sent.
    unpacked = [p for k in range(2) for p in (tmp_path / f"worker-{k}" / "cache" / "bots").glob("sha256-*")]
    assert unpacked and all((p / "first.py").read_text() == FIRST for p in unpacked)
    assert all(p.poll() is None for p in processes)  # the cluster outlives the league


def test_a_bot_folder_too_big_to_ship_is_refused_before_the_league_starts(tmp_path: Path) -> None:
    path = write_league(tmp_path, extra="[cluster]\naddress = \"local:1\"\nmax_folder_mb = 1\n")
    (tmp_path / "mybots" / "weights.bin").write_bytes(b"\0" * (2 << 20))
    result = run_cli("league", "run", str(path), "-q")
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "holds 2 MB" in text and "at most 1 MB" in text and "max_folder_mb" in text
    assert not (tmp_path / "night" / "league.pgn").exists() or (tmp_path / "night" / "league.pgn").read_text() == ""


def test_cluster_addresses_that_cannot_work_are_messages(tmp_path: Path) -> None:
    path = write_league(tmp_path)
    missing = run_cli("league", "run", str(path), "--cluster", str(tmp_path / "nope.json"))
    assert missing.exit_code == 2 and "no such scheduler file" in " ".join(missing.output.split())
    bad = run_cli("league", "run", str(path), "--cluster", "local:zero")
    assert bad.exit_code == 2 and "local:N" in bad.output


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_address_where_nothing_answers_is_a_missing_scheduler(tmp_path: Path) -> None:
    """Only an address where nothing answers (after the connect window, in which a
    scheduler still starting would have opened its port) is blamed on the scheduler,
    whether given as tcp://... or through a scheduler file left by one that ended."""
    port = free_port()
    with pytest.raises(ClusterError) as given:
        DaskExecutor(f"tcp://127.0.0.1:{port}", connect_s=1).connect()
    text = str(given.value)
    assert f"cannot use the Dask cluster at tcp://127.0.0.1:{port}: nothing answers there" in text
    assert "is `dask scheduler` running there" in text
    stale = tmp_path / "cluster.json"
    stale.write_text(f'{{"type": "Scheduler", "address": "tcp://127.0.0.1:{port}"}}')
    with pytest.raises(ClusterError) as filed:
        DaskExecutor(str(stale), connect_s=1).connect()
    assert f"tcp://127.0.0.1:{port} (from the scheduler file {stale}): nothing answers" in str(filed.value)
    stale.write_text("{}")
    with pytest.raises(ClusterError, match="holds no scheduler address"):
        DaskExecutor(str(stale), connect_s=0.2).connect()


def test_a_scheduler_without_its_workers_is_not_ready_and_not_missing(tmp_path: Path) -> None:
    """A scheduler that answers, but whose workers do not come within the readiness
    window: the message names its status and the workers running, never a missing
    scheduler."""
    scheduler_file = tmp_path / "cluster.json"
    scheduler = subprocess.Popen([dask_command(), "scheduler", "--scheduler-file", str(scheduler_file), "--host",
                                  "127.0.0.1", "--port", "0", "--dashboard-address", ":0"], **QUIET)  # type: ignore[call-overload]
    try:
        assert _wait_for(scheduler_file.exists, 60)
        executor = DaskExecutor(str(scheduler_file), ready_s=2)
        with pytest.raises(ClusterError) as waited:
            executor.connect()
        text = " ".join(str(waited.value).split())
        assert "answers but was not ready within 2 s: scheduler running, client running, 0 of 1 worker(s)" in text
        assert "dask scheduler` running there" not in text
        assert executor.client is None  # closed
    finally:
        stop([scheduler])


def test_connecting_waits_for_a_scheduler_still_starting_and_its_worker(tmp_path: Path) -> None:
    """Connecting before the scheduler listens and before any worker joined: the
    executor waits for both (a real readiness condition, not a fixed pause) and is then
    ready to play."""
    address = f"tcp://127.0.0.1:{free_port()}"
    executor = DaskExecutor(address)
    failed: list[BaseException] = []

    def connect() -> None:
        try:
            executor.connect()
        except BaseException as exc:  # noqa: BLE001 - reported by the test's thread
            failed.append(exc)

    connecting = threading.Thread(target=connect, daemon=True)
    connecting.start()
    started: list[subprocess.Popen[bytes]] = []
    try:
        time.sleep(0.5)  # the executor is waiting on a refused port
        assert connecting.is_alive()
        started.append(subprocess.Popen([dask_command(), "scheduler", "--host", "127.0.0.1", "--port",
                                         address.rsplit(":", 1)[1], "--dashboard-address", ":0"], **QUIET))  # type: ignore[call-overload]
        home = tmp_path / "worker"
        home.mkdir()
        started.append(subprocess.Popen([dask_command(), "worker", address, "--nworkers", "1", "--nthreads", "1",
                                         "--no-dashboard", "--local-directory", str(home)], cwd=home, **QUIET))  # type: ignore[call-overload]
        connecting.join(180)
        assert not connecting.is_alive() and failed == [], failed
        assert executor.threads() == 1
    finally:
        executor.close()
        stop(started)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_a_thousand_games_with_a_worker_killed_every_two_hundred(tmp_path: Path, secret: str) -> None:
    bots = "".join(f'[[bots]]\nname = "random-{k}"\ncommand = "random"\n' for k in range(5))
    league_file = ('name = "night"\ngame = "btt"\ngames_per_pairing = 100\nconcurrency = 2\n'
                   f'[time]\nper_move = "5s"\n{bots}')
    for name in ("cluster", "local"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "night.toml").write_text(league_file)
    begin = time.monotonic()
    league = _run_league(tmp_path / "cluster", "--cluster", "local:2")
    database = tmp_path / "cluster" / "night" / "league.sqlite"
    killed = 0
    try:
        for mark in (200, 400, 600, 800):
            assert _wait_for(lambda mark=mark: database.exists() and stored(database)[0] >= mark, 600)
            players = [p for p in descendants(league.pid) if "arena.cluster.play_unit" in command_line(p)]
            if players:
                os.kill(process_table()[players[0]][0], signal.SIGKILL)
                killed += 1
        output, _ = league.communicate(timeout=1200)
    finally:
        league.kill()
    cluster_s = time.monotonic() - begin
    assert league.returncode == 0, output
    games, scheduled, faults = stored(database)
    assert games == scheduled == 1000 and faults == [] and killed == 4
    records = read_record_file(tmp_path / "cluster" / "night" / "league.pgn")
    assert len(records) == 1000 and len({r.tags["Round"] for r in records}) == 1000
    begin = time.monotonic()
    local = _run_league(tmp_path / "local")
    local.communicate(timeout=1200)
    local_s = time.monotonic() - begin
    print(f"1,000 games: cluster local:2 with 4 workers killed {1000 / cluster_s:.1f} games/s; "
          f"local runner {1000 / local_s:.1f} games/s")
