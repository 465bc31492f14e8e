"""The Dask executor: a league's jobs played by the workers of a Dask cluster.

Each job becomes a work unit, submitted as one Dask task; the worker playing it puts
each game's report (and, a few times a second, the plies of its games under way, for
the live page) on a queue of this run (a `distributed.Queue`, named after the
run, so the results of an earlier run's tasks that finish late are never read), and
this side stores each game the moment its report arrives. Dask already plays a task
again on another worker when its worker dies; if it gives up (the task's workers died
too often), the games not yet reported are submitted again as a new task. A game
reported twice (a task played again after some of its games arrived) is stored once:
the store keeps the first. Bot folders travel once, packed and named by their hash;
shipped bots come with the arena on every worker.

A job is submitted only when no job on the cluster holds one of its deals (a bot and a
seed: arena.league.deal_locks), and at most two per worker thread are (one playing, one
queued behind it, so a worker never waits for this side). A job holds its deals from
its submission until its task has ended (the task returns once every bot process of
its games is reaped), through every resubmission; the games of a job all stored do not
free them while its task still runs (its bots may still be quitting, or Dask may be
playing it again after its worker died)."""

from __future__ import annotations

import itertools
import json
import logging
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio

from arena.cluster.reports import outcome
from arena.cluster.units import MAX_FOLDER_MB, PackageError, folder_size, pack_folder, shipped_root, work_unit
from arena.errors import ArenaError
from arena.league.deal_locks import Deal, Dispatcher
from arena.league.executor import GameSink, Job
from arena.league.schedule import ScheduledGame
from arena.process.botfolder import placed
from arena.process.spec import BotSpec
from arena.records.record import Ply

RESUBMISSIONS = 5
"""How many times the games of one job are submitted again after Dask gave up on them."""
POLL_S = 0.05
LATE_S = 5.0
"""How long the reports of a finished task may take to be read before its missing
games are played again."""
CONNECT_S = 30.0
"""How long a scheduler's address may refuse connections (a scheduler still starting)
before the cluster counts as absent."""
READY_S = 120.0
"""How long a cluster that answers may take to be ready (its scheduler running, its
workers joined): generous, since a loaded machine starts a worker's Python slowly."""
CAPACITY_S = 2.0
"""How often the cluster's worker threads are counted again (workers join and leave)."""
ENDED = ("finished", "error", "cancelled", "lost")
"""The states of a future whose task is not running (any longer)."""


class ClusterError(ArenaError):
    """The cluster cannot be reached, has no worker, or failed to play a job."""


@dataclass
class _Running:
    """One job on the cluster: the games not yet stored and its current task."""

    key: str
    job: Job
    left: dict[int, ScheduledGame]
    future: Any = None
    attempts: int = 0
    packages: dict[Path, tuple[str, Any]] = field(default_factory=dict)
    """Per bot folder: its package name and the cluster's future of its bytes."""
    queue: str = ""
    """The queue its task reports on (its `play` call's own)."""

    def ended(self) -> bool:
        """Whether its games are all stored and its task is over (its bots reaped)."""
        return not self.left and (self.future is None or self.future.status in ENDED)


def _local_count(address: str) -> int:
    """N of `local:N`, from 1 to 256; ClusterError otherwise."""
    try:
        count = int(address.split(":", 1)[1])
    except ValueError:
        count = 0
    if not 1 <= count <= 256:
        raise ClusterError(f"--cluster {address}: write local:N with N from 1 to 256")
    return count


def _said(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _listening(address: str) -> bool:
    """Whether anything accepts a TCP connection at the scheduler's `address` now (a
    connection refused or unanswered within 5 s: nothing is there)."""
    try:
        from distributed.comm.addressing import get_address_host_port

        host, port = get_address_host_port(address)
        with socket.create_connection((host, port), timeout=5):
            return True
    except (OSError, ValueError):
        return False


def _deals(item: _Running) -> frozenset[Deal]:
    return item.job.deals


def bot_folders(specs: list[BotSpec]) -> list[Path]:
    """The folders to ship: every bot's that is not one of the arena's shipped bots."""
    root = shipped_root()
    folders = []
    for spec in specs:
        folder = placed(spec).folder
        if folder is None:
            continue  # a bot without a folder of its own has nothing to ship
        if folder != root and root not in folder.parents and folder not in folders:
            folders.append(folder)
    return folders


def check_folders(specs: list[BotSpec], leave_out: tuple[Path, ...], max_mb: int = MAX_FOLDER_MB) -> None:
    """Before the league starts: every folder to ship is at most `max_mb` MB."""
    for spec in specs:
        for folder in bot_folders([spec]):
            size = folder_size(folder, leave_out)
            if size > max_mb << 20:
                raise PackageError(
                    f"bot {spec.name}: its folder {folder} holds {size >> 20} MB, and a cluster ships at most "
                    f"{max_mb} MB of a bot's folder to its workers. Give the bot a folder of its own with only "
                    "what it needs (cwd in the league file), or raise [cluster] max_folder_mb")


class LiveGames:
    """The games under way on the workers, for the live page: each `begin` and batch of
    plies a worker sends, handed to the sink in order. A batch that does not follow the
    plies seen so far (from a task that was played again elsewhere, or one that came
    late) is dropped; a game's next `begin` starts it afresh."""

    def __init__(self, sink: GameSink) -> None:
        self.sink = sink
        self.plies: dict[int, int] = {}
        """Plies seen of each game under way."""

    def take(self, data: dict[str, Any], where: dict[int, _Running]) -> None:
        index = int(data.get("begin", data.get("plies", -1)))
        item = where.get(index)
        game = item.left.get(index) if item is not None else None
        if game is None:
            return  # stored already, or not this run's
        if "begin" in data:
            self.plies[index] = 0
            self.sink.starting(game)
        elif index in self.plies and int(data["from"]) == self.plies[index] + 1:
            for action, chance in zip(data["actions"], data["chance"], strict=True):
                self.sink.ply(game, Ply(0, str(action), chance=bool(chance)))
            self.plies[index] += len(data["actions"])


class DaskExecutor:
    """Plays jobs on the Dask cluster at `address`: a scheduler file, `tcp://host:port`,
    or `local:N` (a cluster of N worker processes started here, and stopped after)."""

    def __init__(self, address: str, leave_out: tuple[Path, ...] = (), quiet_logs: bool = True,
                 connect_s: float = CONNECT_S, ready_s: float = READY_S) -> None:
        self.address = address
        self.connect_s = connect_s
        self.ready_s = ready_s
        self.where = address
        """The scheduler's address as messages name it (with the scheduler file it came from)."""
        self.leave_out = leave_out
        self.client: Any = None
        self.cluster: Any = None
        self.run_id = uuid.uuid4().hex[:12]
        self._bytes: dict[str, bytes] = {}
        self._plays = itertools.count()
        """Each `play` call reports on a queue of its own, so calls may overlap (a ladder's
        slots share one executor and one cluster)."""
        self._connecting = trio.Lock()
        """Each package's bytes, kept to hand them again to a cluster that lost them."""
        if quiet_logs:
            for name in ("distributed", "tornado", "asyncio"):
                logging.getLogger(name).setLevel(logging.ERROR)

    # ---- connecting ----------------------------------------------------------------------

    def connect(self) -> None:
        """Reach the scheduler (or start the local cluster) and wait until the cluster is
        ready: the scheduler running and its workers joined (all N of local:N, else one).
        A cluster that is there but slow to be ready (a loaded machine starts a worker's
        Python slowly) is waited for, up to `ready_s`; only an address where nothing
        answers is reported as a missing scheduler."""
        try:
            expected = self._reach()
            self._await_ready(expected)
        except BaseException:
            self.close()
            raise

    def _reach(self) -> int:
        """Connect the client (starting a local:N cluster first); the workers to wait for."""
        from distributed import Client, LocalCluster

        if self.address.startswith("local:"):
            count = _local_count(self.address)
            try:
                # death_timeout bounds each worker process's start: ready_s, not Dask's
                # few seconds, so that a loaded machine still starts them.
                self.cluster = LocalCluster(n_workers=count, threads_per_worker=1, processes=True,
                                            dashboard_address=None, death_timeout=self.ready_s)
                self.client = Client(self.cluster, timeout=self.connect_s)
            except Exception as exc:  # noqa: BLE001 - Dask's start-up may raise anything
                raise ClusterError(f"--cluster {self.address}: could not start {count} Dask worker process(es) on "
                                   f"this machine within {self.ready_s:g} s ({_said(exc)})") from None
            return count
        self.where, address = self._scheduler_address()
        where = self.where
        try:
            self.client = Client(address, timeout=self.connect_s)
        except Exception as exc:  # noqa: BLE001 - OSError, TimeoutError and Dask's own
            if _listening(address):
                raise ClusterError(f"something listens at {where} but did not answer as a Dask scheduler within "
                                   f"{self.connect_s:g} s ({_said(exc)}): a scheduler too busy to answer, or "
                                   "another program on that port") from None
            raise ClusterError(f"cannot use the Dask cluster at {where}: nothing answers there ({_said(exc)}); is "
                               "`dask scheduler` running there, with at least one `dask worker` joined?") from None
        return 1

    def _scheduler_address(self) -> tuple[str, str]:
        """The address to connect to, and how to name it in a message: `tcp://...` as
        given, or the address a scheduler file holds (read again while it is being written)."""
        if "://" in self.address:
            return self.address, self.address
        path = Path(self.address)
        if not path.is_file():
            raise ClusterError(f"--cluster {self.address}: no such scheduler file; start the scheduler with "
                               f"`dask scheduler --scheduler-file {self.address}`, or give tcp://HOST:PORT "
                               "or local:N")
        deadline = time.monotonic() + self.connect_s
        while True:
            try:
                address = json.loads(path.read_text())["address"]
                if isinstance(address, str) and address:
                    return f"{address} (from the scheduler file {self.address})", address
            except (OSError, ValueError, KeyError, TypeError):
                pass
            if time.monotonic() > deadline:
                raise ClusterError(f"--cluster {self.address}: this file holds no scheduler address (the file "
                                   "`dask scheduler --scheduler-file` writes is JSON with an \"address\")")
            time.sleep(POLL_S)

    def _await_ready(self, expected: int) -> None:
        """Wait up to `ready_s` for the client's connection and the scheduler to be
        running and for `expected` workers to be running; ClusterError naming what was
        not ready otherwise."""
        deadline = time.monotonic() + self.ready_s
        status = "unknown"
        while time.monotonic() < deadline:
            status = self._scheduler_status()
            if status in ("running", "unknown") and self.client.status == "running":
                break
            time.sleep(POLL_S * 4)
        else:
            raise self._not_ready(status, expected)
        try:
            self.client.wait_for_workers(expected, timeout=max(0.1, deadline - time.monotonic()))
        except (TimeoutError, OSError):  # Dask's WorkerStartTimeoutError is a TimeoutError
            raise self._not_ready(self._scheduler_status(), expected) from None

    def _scheduler_status(self) -> str:
        """The scheduler's status ('running' once it has started), 'unknown' where it
        cannot be asked (a scheduler that refuses to run functions)."""
        try:
            status = self.client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.status.name)
        except Exception:  # noqa: BLE001 - the question is optional: the workers' arrival decides
            return "unknown"
        return str(status)

    def _running_workers(self) -> int:
        """Workers the scheduler counts as running (for a message: 0 where it cannot tell)."""
        try:
            try:
                info = self.client.scheduler_info(n_workers=-1)  # every worker (Dask 2025 lists 5 unless told)
            except TypeError:
                info = self.client.scheduler_info()
            return sum(1 for w in info.get("workers", {}).values() if w.get("status") == "running")
        except Exception:  # noqa: BLE001 - for a message only
            return 0

    def _not_ready(self, status: str, expected: int) -> ClusterError:
        """What was not ready: the scheduler's status, the client's, the workers running."""
        where = (f"the local Dask cluster {self.address}" if self.cluster is not None
                 else f"the Dask cluster at {self.where}")
        client = self.client.status if self.client is not None else "not connected"
        joined = self._running_workers()
        advice = ("this machine may be too loaded to start them; try fewer workers" if self.cluster is not None
                  else "start a `dask worker` for this scheduler, or check the ones started")
        return ClusterError(f"{where} answers but was not ready within {self.ready_s:g} s: scheduler {status}, "
                            f"client {client}, {joined} of {expected} worker(s) running; {advice}")

    def threads(self) -> int:
        """The worker threads of the cluster: the games it plays at once."""
        return max(1, sum(self.client.nthreads().values())) if self.client is not None else 1

    def wanted_jobs(self) -> int:
        return 2 * self.threads()  # smaller jobs: work spread evenly, little replayed when a worker dies

    def close(self) -> None:
        for thing in (self.client, self.cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # noqa: BLE001 - closing a broken connection may raise anything
                    pass
        self.client = self.cluster = None

    # ---- playing -------------------------------------------------------------------------

    async def play(self, jobs: list[Job], sink: GameSink) -> None:
        async with self._connecting:
            if self.client is None:
                await trio.to_thread.run_sync(self.connect)
        packages = await trio.to_thread.run_sync(self._scatter_packages, jobs)
        from distributed import Queue

        name = f"arena-{self.run_id}-{next(self._plays)}"
        queue = await trio.to_thread.run_sync(lambda: Queue(name, client=self.client))
        items = [_Running(f"{name}-{k}", job, {g.index: g for g in job.games}, packages=packages, queue=name)
                 for k, job in enumerate(jobs)]
        try:
            await self._collect(items, queue, sink)
        finally:
            futures = [item.future for item in items if item.future is not None]
            if futures and self.client is not None:
                client = self.client
                await trio.to_thread.run_sync(lambda: client.cancel(futures))

    def _scatter_packages(self, jobs: list[Job]) -> dict[Path, tuple[str, Any]]:
        """Pack each bot folder once and hand it to the cluster (it reaches a worker
        with the first task that needs it there)."""
        out: dict[Path, tuple[str, Any]] = {}
        for job in jobs:
            for folder in bot_folders(job.specs):
                if folder not in out:
                    name, data = pack_folder(folder, self.leave_out)
                    self._bytes[name] = data
                    out[folder] = (name, self.client.scatter(data, hash=False))
        return out

    def _rescatter(self, packages: dict[Path, tuple[str, Any]]) -> None:
        """Hand the cluster again the packages it lost (they lived on a worker that died)."""
        for folder, (name, future) in list(packages.items()):
            if future.status != "finished":
                packages[folder] = (name, self.client.scatter(self._bytes[name], hash=False))

    async def _submit(self, item: _Running) -> None:
        from arena.cluster.worker import run_unit

        job = item.job
        if len(item.left) < len(job.games):  # only the games not reported yet
            plan = job.config.plan or ()
            keep = [i for i, g in enumerate(job.games) if g.index in item.left]
            job = replace(job, games=[job.games[i] for i in keep],
                          config=replace(job.config, plan=tuple(plan[i] for i in keep), games=len(keep)))
        await trio.to_thread.run_sync(self._rescatter, item.packages)
        names = {folder: name for folder, (name, _) in item.packages.items()}
        unit = work_unit(f"{item.key}-{item.attempts}", job, names)
        folders = bot_folders(job.specs)
        needed = {name: future for folder, (name, future) in item.packages.items() if folder in folders}
        client = self.client
        submit: Callable[[], Any] = lambda: client.submit(  # noqa: E731
            run_unit, unit, needed, item.queue, key=unit.key, pure=False)
        item.future = await trio.to_thread.run_sync(submit)
        item.attempts += 1

    async def _collect(self, items: list[_Running], queue: Any, sink: GameSink) -> None:
        """Submit each job when the dispatcher lets it start, store each report as it
        arrives, submit again what Dask gave up on and what a finished task never
        reported, and free a job's deals once its task has ended."""
        dispatcher = Dispatcher(items, _deals, self.wanted_jobs())
        where = {index: item for item in items for index in item.left}
        finished_at: dict[str, float] = {}
        counted_at = trio.current_time()
        live = LiveGames(sink)

        async def store() -> bool:
            reports = await trio.to_thread.run_sync(lambda: queue.get(batch=True))
            for data in reports:
                if "index" not in data:
                    live.take(data, where)
                    continue
                item = where.get(int(data["index"]))
                game = item.left.pop(int(data["index"]), None) if item is not None else None
                if game is not None:  # else: reported before (a task played again)
                    live.plies.pop(game.index, None)
                    await sink.finished(game, outcome(data))
            return bool(reports)

        while dispatcher.waiting or any(item.left for item in dispatcher.running):
            for item in dispatcher.take_all():
                await self._submit(item)
            got = await store()
            now = trio.current_time()
            for item in list(dispatcher.running):
                status = item.future.status if item.future is not None else None
                if item.ended():
                    dispatcher.release(item)
                elif not item.left:
                    continue  # every game stored, the task still running (its bots quitting)
                elif status in ("error", "cancelled", "lost"):
                    await self._retry(item)
                elif status == "finished":
                    # Its reports were put on the queue before it finished: give them a
                    # moment to be read, then play the missing games again.
                    if now - finished_at.setdefault(item.key, now) > LATE_S:
                        finished_at.pop(item.key)
                        await self._submit(item)
            if now - counted_at > CAPACITY_S:
                counted_at = now
                dispatcher.capacity = max(1, await trio.to_thread.run_sync(self.wanted_jobs))
            if not got:
                await trio.sleep(POLL_S)

    async def _retry(self, item: _Running) -> None:
        if item.attempts > RESUBMISSIONS:
            error = await trio.to_thread.run_sync(item.future.exception)
            raise ClusterError(f"the cluster failed to play {len(item.left)} game(s) after {item.attempts} tries "
                               f"({type(error).__name__}: {str(error)[:300]}); the games stored so far are kept: "
                               "check the workers and run the league again to resume")
        await self._submit(item)
