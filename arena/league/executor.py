"""Who plays a league's games: the executor. The runner cuts the pending games into
jobs (a table's bots and a run of its games, whole seat rotations; in a game with
chance dealt duplicate, a span of cycles) and hands them to an executor, which plays
them and reports each game to the runner as it ends (and, in one process, each ply
for the live page). Two executors: `LocalExecutor` plays on this machine with
`league.concurrency` jobs at once; the Dask one (arena.cluster) spreads the jobs over
a cluster. Both start a job only when no running job holds one of its deals
(arena.league.deal_locks). The runner does not know which executor it has."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import trio

from arena.errors import ArenaError
from arena.games.base import State
from arena.league.deal_locks import Deal, Dispatcher
from arena.league.schedule import ScheduledGame
from arena.process.spec import BotSpec
from arena.records.record import Ply
from arena.referee.match import MatchConfig, play_match
from arena.referee.outcome import GameOutcome
from arena.referee.scheduling import CoreSlots, pinned


@dataclass(frozen=True)
class Job:
    """A run of one table's games: the bots (league order, each with its seed) and a
    match config whose plan seats them game by game."""

    games: list[ScheduledGame]
    specs: list[BotSpec]
    config: MatchConfig
    deals: frozenset[Deal] = frozenset()
    """The (bot, seed) deals its processes see (arena.league.deal_locks.unit_deals):
    no other job holding one of them may run while this one does."""


def job_deals(job: Job) -> frozenset[Deal]:
    return job.deals


class GameSink(Protocol):
    """The runner as an executor sees it."""

    def starting(self, game: ScheduledGame) -> None:
        """A game begins (its bots are up)."""

    def ply(self, game: ScheduledGame, ply: Ply) -> None:
        """A ply of a game under way (executors that can see plies call it)."""

    async def finished(self, game: ScheduledGame, outcome: GameOutcome) -> None:
        """A game ended: store it (off the event loop). Raises ArenaError when the store
        fails, which stops the whole league."""


class Executor(Protocol):
    """Plays jobs and reports their games to a sink."""

    def wanted_jobs(self) -> int:
        """Into how many jobs the runner should cut the games, at least, when it can
        (as many as it plays at once, or more to spread the work)."""

    async def play(self, jobs: list[Job], sink: GameSink) -> None:
        """Play every job. An ArenaError from the sink stops every job and is raised."""


class LocalExecutor:
    """Jobs played in this process, `concurrency` at a time, each started when no
    running job holds one of its deals. With `affinity`, a job takes a free core slot
    when it starts (arena.referee.scheduling) and its bots run on that slot's cores alone; its
    bots serve all its games, so they never move to another table's cores."""

    def __init__(self, concurrency: int, affinity: bool = False) -> None:
        self.concurrency = concurrency
        self.slots = CoreSlots(concurrency) if affinity else None

    def wanted_jobs(self) -> int:
        return self.concurrency

    async def play(self, jobs: list[Job], sink: GameSink) -> None:
        dispatcher = Dispatcher(jobs, job_deals, self.concurrency)
        ended_send, ended = trio.open_memory_channel[Job](math.inf)
        stopped: list[ArenaError] = []
        async with trio.open_nursery() as nursery:
            while not dispatcher.finished:
                for job in dispatcher.take_all():
                    nursery.start_soon(self._one, job, sink, ended_send, stopped, nursery.cancel_scope)
                dispatcher.release(await ended.receive())
        if stopped:
            raise stopped[0]

    async def _one(self, job: Job, sink: GameSink, ended: trio.MemorySendChannel[Job], stopped: list[ArenaError],
                   everything: trio.CancelScope) -> None:
        """Play `job` (on its core slot's cores, with affinity); once play_match has
        returned (every process of the job reaped), give the slot back and tell the
        dispatcher, which frees its deals."""
        slots = self.slots
        slot = slots.take() if slots is not None else None
        try:
            config = job.config if slots is None or slot is None else pinned(job.config, slots.cores[slot])
            await self._play(job, config, sink, stopped, everything)
        finally:
            if slots is not None and slot is not None:
                slots.give_back(slot)  # after play_match: the job's bots are gone from the slot's cores
        ended.send_nowait(job)

    async def _play(self, job: Job, config: MatchConfig, sink: GameSink, stopped: list[ArenaError],
                    everything: trio.CancelScope) -> None:
        """Play the job's games under `config` (its own, or pinned), reporting each to
        the sink; an ArenaError of the sink stops every job."""
        current: list[ScheduledGame] = []

        async def starting(index: int) -> None:
            current[:] = [job.games[index]]
            sink.starting(job.games[index])

        def watch(state: State, number: int, ply: Ply) -> None:
            if current:
                sink.ply(current[0], ply)

        async def done(index: int, outcome: GameOutcome, seats: list[int]) -> bool:
            current.clear()
            try:
                await sink.finished(job.games[index], outcome)
            except ArenaError as exc:  # the store or the disk failed: stop the whole league
                stopped.append(exc)
                everything.cancel()
                return True
            return False

        await play_match(config, job.specs, done, watch, before_game=starting)
