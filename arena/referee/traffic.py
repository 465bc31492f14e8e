"""The protocol traffic log (`--log-protocol`, like cutechess's -debug): every line each
way between the referee and one bot, with a timestamp and the game and ply it belongs
to, in `<bot's log>.protocol.log` beside the bot's stderr log. A bot author reads it to
see exactly what their bot was sent and what it answered.

    2026-11-25T10:02:03.123456 +12.345ms game 1 ply 3 > {"type":"request","ply":3,...}
    2026-11-25T10:02:03.125001 +1.545ms game 1 ply 3 < {"type":"action","action":"Nc3"}

`>` is the referee to the bot, `<` the bot to the referee; the time after the stamp is
since the previous line of this log."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path
from typing import IO

import trio

from arena.referee.channel import Launch, Launcher, LineChannel

LINE_CAP = 65536
"""Characters of one logged line kept (a bot's line may be 1 MiB)."""
FILE_CAP = 64 << 20
"""Bytes a protocol log may reach; the rest of the match is not logged."""


class TrafficLog:
    """One bot's protocol log, following the game and ply from the messages sent."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle: IO[str] | None = None
        self.game = 0
        self.ply = 0
        self.last = time.perf_counter()
        self.size = 0

    def _open(self) -> IO[str] | None:
        if self.handle is None and self.size < FILE_CAP:
            try:
                self.handle = self.path.open("a", encoding="utf-8")
            except OSError:
                self.size = FILE_CAP  # cannot log: say nothing, change nothing
        return self.handle

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
        handle = self._open()
        if handle is None:
            return
        now = time.perf_counter()
        text = line.decode("utf-8", "backslashreplace")
        if len(text) > LINE_CAP:
            text = text[:LINE_CAP] + f" [arena: cut to {LINE_CAP} of {len(text)} characters]"
        where = f"game {self.game} ply {self.ply}" if self.game else "handshake"
        entry = f"{datetime.now().isoformat(timespec='microseconds')} +{(now - self.last) * 1000:.3f}ms {where} " \
                f"{way} {text}\n"
        self.last = now
        handle.write(entry)
        handle.flush()
        self.size += len(entry.encode())
        if self.size >= FILE_CAP:
            handle.write(f"[arena: protocol log capped at {FILE_CAP} bytes]\n")
            self.close()

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


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

    def close_input(self) -> None:
        self.inner.close_input()

    def kill(self) -> None:
        self.inner.kill()
        self.log.close()

    def cpu_seconds(self) -> float | None:
        return self.inner.cpu_seconds()

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
        return LoggedChannel(channel, TrafficLog(spec.log_path.with_suffix(".protocol.log")))

    return launch
