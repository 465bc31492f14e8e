"""Seating people: the names `human` and `human-web`, their specs (a person is never
a process: its spec's command only names the person), and the launcher that gives a
person an in-process channel and every bot its process."""

from __future__ import annotations

import trio

from arena.people.seat import Person, serve_person
from arena.process.bot_process import launch_process
from arena.process.channel import FakeBotIO, Launch, Launcher, LineChannel, MemoryChannel
from arena.process.spec import BotSpec
from arena.timecontrol import MAX_SECONDS, TimeControl

PEOPLE = ("human", "human-web")
"""Bot names that seat a person: in the terminal, or in the browser."""
MARK = "arena-person"
"""The first word of a person's command: never run."""
UNHURRIED = TimeControl(per_move_s=MAX_SECONDS)
"""A person's time when the command gives no time control: no limit worth the name."""


def person_spec(name: str, key: str, time_control: TimeControl | None) -> BotSpec:
    """The spec of person `key` (an index into the launcher's people), named `name`."""
    return BotSpec(name, [MARK, key], time_control=time_control)


def people_launcher(people: dict[str, Person], bots: Launcher = launch_process) -> Launcher:
    """A Launcher that seats `people` (by the key in their spec) and starts every other
    bot with `bots`."""

    async def launch(launch: Launch, nursery: trio.Nursery) -> LineChannel:
        command = launch.spec.command
        if command[:1] == [MARK]:
            person = people[command[1]]

            async def seat(io: FakeBotIO) -> None:
                await serve_person(io, person)

            return MemoryChannel(seat, nursery, launch.limits)
        return await bots(launch, nursery)

    return launch
