"""`arena bench --only cluster`: the same league of short games played by the local
runner and by a local Dask cluster of 2 worker processes, in one run: games per second
of each, the cluster's cost per game, the scheduler's cost per task, and how many games
per second the coordinator can store (the ceiling of any cluster: one SQLite writer)."""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from pathlib import Path

import trio
from rich.table import Table

from arena import games
from arena.league.config import BotEntry, LeagueFile, TimeSection, resolve_league
from arena.league.executor import Executor, LocalExecutor
from arena.league.runner import LeagueRunner, open_league
from arena.records.files import append
from arena.records.record import GameRecord, Ply, turn_numbers
from arena.referee.outcome import GameSetup, game_tags
from arena.termination import Termination
from arena.timecontrol import TimeControl


def _league(folder: Path, name: str, games: int) -> LeagueFile:
    bots = [BotEntry(name=f"random-{k}", command="random") for k in range(4)]
    per_pairing = max(2, games // 6 + (games // 6) % 2)  # 6 pairs of 4 bots
    return LeagueFile(name=name, game="btt", seats=2, games_per_pairing=per_pairing, bots=bots, concurrency=2,
                      output=str(folder / name), time=TimeSection(per_move="5s"))


def _run(folder: Path, name: str, games: int, executor: Executor) -> tuple[int, float]:
    """Games played and wall seconds for one league on `executor`."""
    league = resolve_league(_league(folder, name, games), folder)
    store, schedule = open_league(league)
    runner = LeagueRunner(league, store, schedule, executor=executor)
    begin = time.perf_counter()
    try:
        trio.run(runner.run)
    finally:
        store.close()
    return len(schedule), time.perf_counter() - begin


def scheduler_task_cost(client: object, tasks: int = 2000) -> float:
    """Seconds of the scheduler's round trip per trivial task (submitted and gathered)."""
    begin = time.perf_counter()
    futures = client.map(abs, range(-tasks, 0), pure=False)  # type: ignore[attr-defined]
    client.gather(futures)  # type: ignore[attr-defined]
    return (time.perf_counter() - begin) / tasks


def queue_rate(client: object, reports: int = 1000) -> float:
    """Game reports per second through a Dask queue (what each finished game costs the
    scheduler): put by a task on a worker, taken here in batches."""
    from distributed import Queue

    from arena import records

    record = records.write(_random_record(1))
    queue = Queue("arena-bench-queue", client=client)
    begin = time.perf_counter()
    future = client.submit(_put_reports, "arena-bench-queue", record, reports, pure=False)  # type: ignore[attr-defined]
    taken = 0
    while taken < reports:
        taken += len(queue.get(batch=True)) or 0
        if not taken:
            time.sleep(0.001)
    future.result()
    return reports / (time.perf_counter() - begin)


def _put_reports(name: str, record: str, count: int) -> int:
    from distributed import Queue

    queue = Queue(name)
    for index in range(count):
        queue.put({"index": index, "record": record})
    return count


def _random_record(seed: int) -> GameRecord:
    """A 2-seat BTT game of random actions, recorded as the referee records it."""
    game = games.get("btt")
    options = game.resolve_options({})
    state = game.new_state(2, options)
    rng = random.Random(seed)
    actors, actions = [], []
    while not state.is_terminal():
        actors.append(state.current())
        actions.append(rng.choice(state.legal_actions()))
        state.apply(actions[-1])
    plies = [Ply(t, a, actor=p, elapsed_ms=1.0) for t, a, p in zip(turn_numbers(actors), actions, actors)]
    result = state.result()
    tags = game_tags(GameSetup(game, options, (TimeControl(),) * 2, seed), ["a", "b"], result.ranks, result.scores,
                     Termination.NORMAL, "", len(plies))
    return GameRecord(tags=tags, plies=plies)


def store_rate(folder: Path, games: int = 400) -> float:
    """Games per second the coordinator can store: a league's SQLite store and its
    records file, each game in its own transaction, as the runner stores them."""
    raw = LeagueFile(name="store", game="btt", seats=2, games_per_pairing=games,
                     bots=[BotEntry(name="a", command="random"), BotEntry(name="b", command="random")],
                     output=str(folder / "store"))
    league = resolve_league(raw, folder)
    store, schedule = open_league(league)
    records = [_random_record(k) for k in range(20)]
    begin = time.perf_counter()
    try:
        for k, game in enumerate(schedule):
            record = records[k % len(records)]
            store.save_game(game, (1, 2), (5.0, 3.0), [], "normal", record)
            append(league.records, record)
    finally:
        store.close()
    return len(schedule) / (time.perf_counter() - begin)


def cluster_table(games: int = 240) -> Table:
    from arena.cluster.executor import DaskExecutor

    folder = Path(tempfile.mkdtemp(prefix="arena-bench-cluster-"))
    table = Table(title=f"League of random bots (BTT, 2 seats, about {games} games): one machine against a local "
                        "Dask cluster of 2 worker processes, same run")
    for column in ("runner", "games", "wall", "games/s", "against local"):
        table.add_column(column, justify="right")
    cluster = DaskExecutor("local:2")
    try:
        played, local_wall = _run(folder, "local", games, LocalExecutor(2))
        cluster.connect()
        task_cost = scheduler_task_cost(cluster.client)
        reports = queue_rate(cluster.client)
        _, cluster_wall = _run(folder, "cluster", games, cluster)
        local_rate, cluster_rate = played / local_wall, played / cluster_wall
        table.add_row("local, concurrency 2", str(played), f"{local_wall:.1f} s", f"{local_rate:,.1f}", "1.00x")
        table.add_row("cluster local:2", str(played), f"{cluster_wall:.1f} s", f"{cluster_rate:,.1f}",
                      f"{cluster_rate / local_rate:.2f}x")
        stores = store_rate(folder)
        table.caption = (f"cluster overhead {(cluster_wall - local_wall) / played * 1000:+.1f} ms a game; "
                         f"scheduler {task_cost * 1e6:,.0f} us a task (2,000 trivial tasks, {1 / task_cost:,.0f} "
                         f"tasks/s); {reports:,.0f} game reports/s through the queue; the coordinator stores "
                         f"{stores:,.0f} games/s (SQLite and records file); "
                         "target: the cluster at 80% or more of the local games/s")
    finally:
        cluster.close()
        shutil.rmtree(folder, ignore_errors=True)
    return table
