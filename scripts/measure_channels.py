"""Measure the covert channels left between two bots that run at the same time, each in
the sandbox the arena builds (its namespaces, system call filter, cgroup or per-process
limits; as root, a host user of its own each, or both as nobody with --shared-user,
what the arena does when it cannot lease users).

For each channel asked, a receiver and a sender (bots/zoo/channels/<family>.py) are
started as the arena starts a bot (arena.process.proctree.ProcessTree and the sandbox
command of arena.process.sandbox, as BotProcess does), given the same start time, and
the sender sends random bits; the table says how many came out right and how fast.

    python scripts/measure_channels.py                    # every channel
    python scripts/measure_channels.py ptys pipes --bits 32 --slot 0.02
    python scripts/measure_channels.py pipes signals --shared-user
    python scripts/measure_channels.py --list

This is a measurement, not a test: the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import queue
import random
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from arena.process.proctree import ProcessTree
from arena.process.reaper import process_reaper
from arena.process.sandbox import Isolation, probe, sandbox_command
from arena.process.spec import BotSpec, Limits

FOLDER = Path(__file__).resolve().parent.parent / "bots" / "zoo" / "channels"


@dataclass(frozen=True)
class Channel:
    family: str
    """The script in bots/zoo/channels that holds its sender and receiver."""
    slot: float
    """Seconds per bit (per block of bits for the one-shot channels) by default."""
    bits: int = 64


CHANNELS = {
    # CPU: the sender spins (every core its quota lets it use) or sleeps
    "cpu-progress": Channel("cpu", 0.1),
    "cpu-running": Channel("cpu", 0.1),
    "cpu-pressure": Channel("cpu", 0.05),
    "cpu-idle": Channel("cpu", 0.1),
    # global counters of the kernel
    "threads": Channel("counters", 0.05),
    "forks": Channel("counters", 0.02),
    "files": Channel("counters", 0.2),
    "ptys": Channel("counters", 0.01),
    "memory": Channel("counters", 0.01),
    "dentries": Channel("counters", 0.05),
    "ctxt": Channel("counters", 0.02),
    "interrupts": Channel("counters", 0.02),
    # quotas the kernel keeps per host user
    "pipes": Channel("peruser", 0.005),
    "signals": Channel("peruser", 0.005),
    "mqueue": Channel("peruser", 0.005),
    "nproc": Channel("peruser", 0.05),
    # caches of shared files, read by timing: each page or name carries one bit once
    "pages": Channel("caches", 0.05, 256),
    "names": Channel("caches", 0.01, 256),
    # a shared futex on a read-only mapping of a file both see
    "futex": Channel("futex", 0.0, 1024),
}


class Bot:
    """One sandboxed process as the arena starts it, with its stdout read line by line."""

    def __init__(self, argv: list[str], isolation: Isolation) -> None:
        spec = BotSpec("channel", [sys.executable, *argv], cwd=str(FOLDER))
        limits = Limits()
        self.tree = ProcessTree(limits, process_reaper())
        self.tree.prepare()  # as BotProcess._start: the cgroup first, then the command that fits it
        command = sandbox_command(isolation, spec, limits, (), self.tree.memory_counted)
        stdin, stdout, stderr = self.tree.start(command)
        self.stdin = os.fdopen(stdin, "w")
        self.lines: queue.Queue[str] = queue.Queue()
        self.errors: list[str] = []
        threading.Thread(target=self._read, args=(stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._read, args=(stderr, self.errors.append), daemon=True).start()

    @staticmethod
    def _read(fd: int, put: object) -> None:
        with os.fdopen(fd) as handle:
            for line in handle:
                put(line.rstrip("\n"))  # type: ignore[operator]
        put("")  # type: ignore[operator]

    def line(self, timeout: float) -> str:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return ""

    def kill(self) -> None:
        self.tree.kill()
        process_reaper().settle_now([self.tree.pid] if self.tree.pid else None, 20)


@dataclass
class Result:
    channel: str
    sent: int
    right: int
    seconds: float
    note: str = ""


def measure(name: str, bits: int, slot: float | None, rng: random.Random, isolation: Isolation) -> Result:
    channel = CHANNELS[name]
    slot = channel.slot if slot is None else slot
    message = "".join(rng.choice("01") for _ in range(bits))
    key = str(rng.randrange(1 << 40))
    script = f"{channel.family}.py"
    family_name = name.removeprefix("cpu-")
    receiver = Bot([script, "receive", family_name, str(slot), str(bits), key], isolation)
    sender = Bot([script, "send", family_name, str(slot), message, key], isolation)
    try:
        for bot in (receiver, sender):
            if bot.line(60) != "ready":
                why = (bot.errors[-1:] or ["no word"])[0]
                return Result(name, bits, 0, 0.0, f"did not start: {why}")
        start = time.time() + 0.2
        for bot in (receiver, sender):
            bot.stdin.write(f"go {start}\n")
            bot.stdin.flush()
        expected = bits * slot if channel.family != "caches" else (bits / 64 + 1) * slot
        answer = receiver.line(expected + 60).split()
        if len(answer) != 3 or answer[0] != "bits":
            why = (receiver.errors[-1:] or sender.errors[-1:] or ["no answer"])[0]
            return Result(name, bits, 0, 0.0, f"failed: {why}")
        got, seconds = answer[1], float(answer[2])
        right = sum(a == b for a, b in zip(message, got))
        return Result(name, bits, right, seconds)
    finally:
        sender.kill()
        receiver.kill()


def row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("channels", nargs="*", help="channels to measure (default: all)")
    parser.add_argument("--bits", type=int, help="bits to send (default: the channel's)")
    parser.add_argument("--slot", type=float, help="seconds per bit, or per block of 64 bits (caches)")
    parser.add_argument("--seed", type=int, help="seed of the random message")
    parser.add_argument("--shared-user", action="store_true",
                        help="as root: run both sandboxes as nobody, as the arena does when it cannot lease a user "
                             "of its own for each")
    parser.add_argument("--list", action="store_true", help="list the channels and their default slots")
    args = parser.parse_args()
    if args.list:
        for name, channel in CHANNELS.items():
            print(f"{name:14} {channel.family}.py  slot {channel.slot:g} s, {channel.bits} bits")
        return 0
    unknown = [name for name in args.channels if name not in CHANNELS]
    if unknown:
        parser.error(f"unknown channel(s) {', '.join(unknown)}; --list lists them")
    isolation = probe()
    if not isolation.sandbox:
        print(f"no sandbox here: {isolation.why}", file=sys.stderr)
        return 1
    if args.shared_user:
        isolation = dataclasses.replace(isolation, own_users=False)
    if isolation.run_as is None:
        user = f"uid {os.getuid()}, the arena's own"
    else:
        user = "a user of its own each" if isolation.own_users else "nobody, both"
    filtered = "with" if isolation.syscall_filter else "without"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"sandboxes run as {user}, {filtered} the system call filter; load average {load}; {os.cpu_count()} cores")
    print(row(["channel", "bits sent", "bits right", "seconds", "bits/s", "errors"]))
    print(row(["---"] * 6), flush=True)
    rng = random.Random(args.seed)
    for name in args.channels or list(CHANNELS):
        result = measure(name, args.bits or CHANNELS[name].bits, args.slot, rng, isolation)
        carried = not result.note and result.right / result.sent > 0.6  # else no better than chance
        rate = f"{result.sent / result.seconds:.0f}" if carried else "-"
        errors = f"{100 * (1 - result.right / result.sent):.1f}%" if not result.note else result.note
        print(row([name, str(result.sent), str(result.right), f"{result.seconds:.3g}", rate, errors]), flush=True)
    print("load average afterwards " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
