"""The protocol traffic log (`--log-protocol`, like cutechess's -debug): every line each
way between the referee and one bot, with a timestamp and the game and ply it belongs
to, in `<bot's log>.protocol.log` beside the bot's stderr log. A bot author reads it to
see exactly what their bot was sent and what it answered.

    2026-11-25T10:02:03.123456 +12.345ms game 1 ply 3 > {"type":"request","ply":3,...}
    2026-11-25T10:02:03.125001 +1.545ms game 1 ply 3 < {"type":"action","action":"Nc3"}

`>` is the referee to the bot, `<` the bot to the referee; the time after the stamp is
since the previous line of this log.

The log is capped like the stderr log (arena.process.stderr_log.LogBudget): FILE_CAP
bytes for all the bot's protocol logs, whatever the number of its processes (each
restart appends to the same file), units of work and runs, and in a league for all
its tables together; the line that reaches the cap is cut, and the note follows once
per file."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

import trio

from arena.process.channel import Launch, Launcher, LineChannel
from arena.process.stderr_log import CappedLog

LINE_CAP = 65536
"""Characters of one logged line kept (a bot's line may be 1 MiB)."""
FILE_CAP = 64 << 20
"""Bytes a bot's protocol logs may hold in all (the default of TrafficLog's `cap`);
the rest is not logged."""
SUFFIX = ".protocol.log"
NOTE = "\n[arena: protocol log capped at {cap} bytes]\n"


class TrafficLog:
    """One bot's protocol log, following the game and ply from the messages sent; it
    and the bot's other protocol logs hold at most `cap` bytes (default FILE_CAP)."""

    def __init__(self, path: Path, cap: int | None = None) -> None:
        self.path = path
        self.cap = FILE_CAP if cap is None else cap
        self.file = CappedLog(path, SUFFIX, self.cap, NOTE)
        self.failed = False
        """The file could not be opened: say nothing, change nothing."""
        self.game = 0
        self.ply = 0
        self.last = time.perf_counter()

    def open(self) -> bool:
        """Open the file and count what the bot's protocol logs hold (blocking); whether
        anything more can be logged."""
        if self.file.fd < 0 and not self.failed:
            self.failed = not self.file.open()
        return self.file.fd >= 0

    def sent(self, data: bytes) -> None:
        for line in data.splitlines():
            self._follow(line)
            self._write(">", line)

    def received(self, line: bytes) -> None:
        self._write("<", line)

    def _follow(self, line: bytes) -> None:
        if b'"type":"start"' in line:
            try:
                self.game = int(json.loads(line).get("match_game", 0)) + 1
            except (ValueError, AttributeError):
                pass
            self.ply = 0
        elif b'"type":"request"' in line:
            try:
                self.ply = int(json.loads(line)["ply"])
            except (ValueError, KeyError, TypeError):
                pass

    def _write(self, way: str, line: bytes) -> None:
        if not self.open() or self.file.done:
            return
        now = time.perf_counter()
        text = line.decode("utf-8", "backslashreplace")
        if len(text) > LINE_CAP:
            text = text[:LINE_CAP] + f" [arena: cut to {LINE_CAP} of {len(text)} characters]"
        where = f"game {self.game} ply {self.ply}" if self.game else "handshake"
        entry = f"{datetime.now().isoformat(timespec='microseconds')} +{(now - self.last) * 1000:.3f}ms {where} " \
                f"{way} {text}\n"
        self.last = now
        self.file.write(entry.encode())

    def close(self) -> None:
        self.file.close()


class LoggedChannel:
    """A LineChannel that writes every line each way to a TrafficLog."""

    def __init__(self, inner: LineChannel, log: TrafficLog) -> None:
        self.inner = inner
        self.log = log

    @property
    def pgid(self) -> int | None:
        return self.inner.pgid

    @property
    def running(self) -> bool:
        return self.inner.running

    @property
    def buffered(self) -> bool:
        return self.inner.buffered

    async def write(self, data: bytes, deadline: float) -> None:
        self.log.sent(data)
        await self.inner.write(data, deadline)

    async def read_line(self, deadline: float) -> bytes:
        line = await self.inner.read_line(deadline)
        self.log.received(line)
        return line

    def unsolicited(self) -> bool:
        return self.inner.unsolicited()

    def stderr_tail(self) -> str:
        return self.inner.stderr_tail()

    def close_input(self) -> None:
        self.inner.close_input()

    def kill(self) -> None:
        self.inner.kill()
        self.log.close()

    def cpu_seconds(self) -> float | None:
        return self.inner.cpu_seconds()

    async def count_tree(self) -> None:
        await self.inner.count_tree()

    def limits_hit(self) -> tuple[bool, bool]:
        return self.inner.limits_hit()

    def limits_per_process(self) -> bool:
        return self.inner.limits_per_process()

    async def clear_scratch(self) -> bool:
        return await self.inner.clear_scratch()

    async def exited(self) -> None:
        await self.inner.exited()


def logging_launcher(launcher: Launcher) -> Launcher:
    """`launcher` with each bot's traffic logged beside its stderr log (bots without a
    log file are not logged)."""

    async def launch(spec: Launch, nursery: trio.Nursery) -> LineChannel:
        channel = await launcher(spec, nursery)
        if spec.log_path is None:
            return channel
        log = TrafficLog(spec.log_path.with_suffix(SUFFIX))
        await trio.to_thread.run_sync(log.open)  # a league's first count reads every table's folder
        return LoggedChannel(channel, log)

    return launch
