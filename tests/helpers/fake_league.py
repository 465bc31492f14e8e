"""A league's deals without real bots, for the tests of who may hold a deal when
(tests/test_league_deal_locks.py, tests/test_fresh_deals.py): the dispatcher played
through every finishing order with the rule checked at each step, and a league of
in-memory bots that note when each of their processes lives and which cycles it sees."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass, field, replace

import trio

from arena.league.config import League
from arena.league.deal_locks import Dispatcher, unit_deals
from arena.league.executor import GameSink, Job, LocalExecutor
from arena.league.runner import LeagueRunner, open_league
from arena.league.schedule import ScheduledGame
from arena.process.channel import FakeBotIO, Launch, Launcher, LineChannel, MemoryChannel

Unit = list[ScheduledGame]


def shares_a_deal(one: Unit, other: Unit) -> bool:
    """Whether two units have a bot and a seed in common (from their games, not from
    what the dispatcher holds)."""
    return any(set(a.seats) & set(b.seats) and a.seed == b.seed for a in one for b in other)


def dispatch(units: list[Unit], concurrency: int, rng: random.Random) -> list[Unit]:
    """Play `units` through a dispatcher, ending a running unit chosen by `rng` each
    step; checks the rule at every step and returns the units in the order started."""
    dispatcher = Dispatcher(units, lambda unit: unit_deals(unit, chance=True), concurrency)
    started: list[Unit] = []
    while not dispatcher.finished:
        started += dispatcher.take_all()
        running = dispatcher.running
        assert running, "stuck: units wait and none runs"
        assert len(running) <= concurrency
        for one, other in itertools.combinations(running, 2):
            assert not shares_a_deal(one, other), (one, other)
        for unit in dispatcher.waiting:  # nothing left waiting that could have started
            assert len(running) == concurrency or any(shares_a_deal(unit, r) for r in running)
        dispatcher.release(rng.choice(running))
    return started


@dataclass
class Life:
    """One process of a fake bot: when it began and ended (ticks of one counter) and
    the cycles (seeds) of the games it was started for."""

    bot: str
    began: int
    ended: int = -1
    cycles: set[int] = field(default_factory=set)


class NotingBots:
    """Fake bots (first legal action) that note every process's life."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.ticks = itertools.count()
        self.lives: list[Life] = []

    async def play(self, bot: str, io: FakeBotIO) -> None:
        life = Life(bot, next(self.ticks))
        self.lives.append(life)
        try:
            while (line := await io.read_line()) is not None:
                message = json.loads(line)
                if message["type"] == "hello":
                    await io.write(b'{"type":"ready","name":"fake"}\n')
                elif message["type"] == "start":
                    life.cycles.add(int(message.get("match_game", 0)) // self.seats)
                elif message["type"] == "request":
                    await io.write(json.dumps({"type": "action", "action": message["legal"][0]}).encode() + b"\n")
                elif message["type"] == "quit":
                    return
        finally:
            life.ended = next(self.ticks)

    def launcher(self) -> Launcher:
        async def launch(launch: Launch, nursery: trio.Nursery) -> LineChannel:
            async def bot(io: FakeBotIO) -> None:
                await self.play(launch.spec.name, io)

            return MemoryChannel(bot, nursery, launch.limits)

        return launch

    def overlaps(self) -> list[tuple[Life, Life]]:
        """Pairs of processes of one bot alive at once that saw one cycle's deal."""
        return [(a, b) for a, b in itertools.combinations(self.lives, 2)
                if a.bot == b.bot and a.cycles & b.cycles and a.began < b.ended and b.began < a.ended]


class FakeExecutor(LocalExecutor):
    """This machine's executor, its bots in memory."""

    def __init__(self, concurrency: int, bots: NotingBots) -> None:
        super().__init__(concurrency)
        self.bots = bots

    async def play(self, jobs: list[Job], sink: GameSink) -> None:
        launcher = self.bots.launcher()
        await super().play([replace(job, config=replace(job.config, launcher=launcher)) for job in jobs], sink)


def run_fake_league(league: League, bots: NotingBots) -> int:
    """Play the league with in-memory bots; the games stored."""
    store, schedule = open_league(league)
    try:
        runner = LeagueRunner(league, store, schedule, executor=FakeExecutor(league.concurrency, bots))
        trio.run(runner.run)
        assert sorted(g.index for g in store.games()) == sorted(g.index for g in schedule)
        assert {g.termination for g in store.games()} == {"normal"}
        return len(schedule)
    finally:
        store.close()
