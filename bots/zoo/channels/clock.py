"""The clock the channel scripts share: bits sent in slots of a common start time
(Manchester: each bit is a high and a low half, so the receiver compares its two
readings and needs no threshold), and the `main` that runs a script's sender or
receiver (`SCRIPT send|receive CHANNEL SLOT BITS|COUNT [KEY]`, then `go T` on stdin).
Standard library only."""
import os
import sys
import time
from collections.abc import Callable


def until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))


def send_bits(bits: str, start: float, slot: float, hold: Callable[[bool, float], None]) -> None:
    """Manchester: a 1 is high then low, a 0 low then high; `hold(level, end)` keeps a level until `end`."""
    for i, bit in enumerate(bits):
        hold(bit == "1", start + (i + 0.5) * slot)
        hold(bit == "0", start + (i + 1) * slot)


def receive_bits(count: int, start: float, slot: float, measure: Callable[[float, float], float]) -> str:
    """`measure(a, b)` reads the channel from a to b (larger when the sender is high)."""
    bits = ""
    for i in range(count):
        first = measure(start + i * slot, start + (i + 0.5) * slot)
        second = measure(start + (i + 0.5) * slot, start + (i + 1) * slot)
        bits += "1" if first > second else "0"
    return bits


def level(read: Callable[[], float]) -> Callable[[float, float], float]:
    """The mean of readings over the last half of the window (the sender's change has landed)."""
    def measure(a: float, b: float) -> float:
        until(a + (b - a) / 2)
        values = [read()]
        while time.time() < b - 0.0005:
            values.append(read())
            time.sleep(0.0005)
        return sum(values) / len(values)
    return measure


def rate(read: Callable[[], float]) -> Callable[[float, float], float]:
    """How much a counter grew from a quarter into the window to its end."""
    def measure(a: float, b: float) -> float:
        until(a + (b - a) / 4)
        first = read()
        until(b)
        return read() - first
    return measure


def main(senders: dict[str, Callable[[], Callable[[bool, float], None]]],
         receivers: dict[str, Callable[[], Callable[[float, float], float]]]) -> None:
    mode, channel, slot, arg = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    os.environ["CHANNEL_KEY"] = sys.argv[5] if len(sys.argv) > 5 else "0"  # names of this run's own
    act = senders[channel]() if mode == "send" else None
    measure = receivers[channel]() if mode == "receive" else None
    print("ready", flush=True)
    start = float(sys.stdin.readline().split()[1])
    if act is not None:
        send_bits(arg, start, slot, act)
        print("sent", flush=True)
    elif measure is not None:
        bits = receive_bits(int(arg), start, slot, measure)
        print("bits", bits, f"{time.time() - start:.6f}", flush=True)


def field(path: str, line_start: str, index: int) -> Callable[[], float]:
    """A number of a file of /proc: field `index` of the line starting with `line_start`
    (`1/234` and `avg10=0.5` split like spaces)."""
    def read() -> float:
        with open(path) as handle:
            for line in handle:
                if line.startswith(line_start):
                    return float(line.replace("/", " ").replace("=", " ").split()[index])
        raise LookupError(line_start)
    return read
