"""Isolation backends are chosen by type: `Launch.backend` when the caller names one,
else `backend_for(limits)`. A new backend is a subclass of `Backend` and nothing else."""

from __future__ import annotations

import math
import sys
import tempfile
from collections.abc import Callable

import pytest
import trio

from arena.process.backends import Backend, Bubblewrap, Unsandboxed, backend_for
from arena.process.bot_process import launch_process
from arena.process.channel import Launch
from arena.process.command import BotCommand
from arena.process.scratch import Budget
from arena.process.spec import BotSpec, Limits
from tests.helpers.escape import skip_without_sandbox

TELL_SCRATCH = ("import os, sys; sys.stdin.readline(); "
                "print(os.environ['ARENA_SCRATCH'] + ' ' + os.environ.get('MARK', ''), flush=True)")


def spec(token: str) -> BotSpec:
    return BotSpec(token, [sys.executable, "-c", TELL_SCRATCH + f"  # {token}"])


async def scratch_seen(launch: Launch) -> str:
    async with trio.open_nursery() as nursery:
        channel = await launch_process(launch, nursery)
        try:
            await channel.write(b"go\n", math.inf)
            with trio.fail_after(60):
                return (await channel.read_line(math.inf)).decode()
        finally:
            channel.kill()


class Marked(Unsandboxed):
    """A made-up backend: the plain one with a mark in the bot's environment."""

    made: list[Marked] = []

    def command(self, memory_counted: bool, cleanups: list[Callable[[], None]]) -> BotCommand:
        Marked.made.append(self)
        command = super().command(memory_counted, cleanups)
        command.env["MARK"] = "marked"
        return command

    def empty(self, budget: Budget, pid: int | None, cleanups: list[Callable[[], None]]) -> bool:
        return super().empty(budget, pid, cleanups)


def test_limits_without_sandbox_choose_the_plain_backend() -> None:
    assert backend_for(Limits(sandbox=False)) is Unsandboxed
    assert not Unsandboxed.sandboxed and Bubblewrap.sandboxed


def test_a_named_backend_wins_over_the_limits() -> None:
    skip_without_sandbox()
    assert backend_for(Limits()) is Bubblewrap
    sandboxed = trio.run(scratch_seen, Launch(spec("backend-default"), None, Limits()))
    assert sandboxed.split()[0] == "/scratch", sandboxed
    plain = trio.run(scratch_seen, Launch(spec("backend-plain"), None, Limits(), backend=Unsandboxed))
    assert plain.split()[0].startswith(tempfile.gettempdir()), plain  # a folder of the host


def test_a_new_backend_is_a_subclass() -> None:
    Marked.made.clear()
    seen = trio.run(scratch_seen, Launch(spec("backend-marked"), None, Limits(sandbox=False), backend=Marked))
    assert seen.endswith(" marked") and len(Marked.made) == 1, seen


def test_backend_must_say_what_to_start() -> None:
    with pytest.raises(TypeError):
        Backend(spec("abstract"), Limits(), ())  # type: ignore[abstract]
