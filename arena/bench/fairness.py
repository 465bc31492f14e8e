"""`arena bench --only fairness`: what one table's attack on the referee costs the bots
thinking at the other tables.

Every table of a league shares the referee's event loop, which keeps every bot's
clock: if anything a bot does makes the loop block, the bots thinking elsewhere are
charged for it. Two tables of sleeping bots (zoo/sleeper: one answering at 50%, one at
80% of a 100 ms limit) play BTT while a third table's bot attacks: litter for the
referee to clear before each game (files by the hundred thousand, folders nested
5,000 deep), or a hundred processes holding 10,000 descriptors each when it times out
and is killed. For every decision at the sleepers' tables, the time the referee
charged beyond the bot's own sleep; the table shows the worst and the 99th percentile,
and the time-outs, without an attacking table and with each attack: on the same
referee loop (as a league's tables are played), and with the attacking table in a
process of its own (as worker processes would play it), to weigh one against the other.

The measure uses only play_match, MatchConfig, TimeControl and resolve_bot, so the
same file measures an older referee too (PYTHONPATH pointing at its tree).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from dataclasses import dataclass, field

import trio
from rich.table import Table

from arena import games
from arena.process.botnames import resolve_bot
from arena.process.spec import BotSpec, timed
from arena.referee.match import MatchConfig, MatchResult, play_match
from arena.referee.outcome import GameOutcome
from arena.timecontrol import TimeControl

LIMIT_S = 0.1
SLEEPS_MS = (50, 80)
"""The sleepers' thinking time at each table: 50% and 80% of the limit."""
HEARTBEAT_S = 0.005
ATTACKER_GAMES = 400
"""The most games the attacking table plays (it stops when the sleepers are done; its
plan of games is made at once, so not a needless ten thousand)."""
ATTACKER_LIMIT_S = 3.0
"""The attacking table's own limit: long enough for the hoard to be whole when it
times out."""

ATTACKS: dict[str, tuple[str, dict[str, str]]] = {
    "200,000 files a game": ("zoo/litter", {"ZOO_LITTER": "files", "ZOO_COUNT": "200000",
                                                    "ZOO_BACKGROUND": "1"}),
    "5,000 nested folders a game": ("zoo/litter", {"ZOO_LITTER": "deep", "ZOO_COUNT": "5000"}),
    "100 procs x 10,000 fds, time-out": ("zoo/fd_hoard", {
        "ZOO_CHILDREN": "100", "ZOO_FDS": "10000", "ZOO_PLY": "1"}),
}


@dataclass
class Charged:
    """What the sleepers were charged beyond their sleep, in milliseconds."""

    extra_ms: list[float] = field(default_factory=list)
    time_outs: int = 0
    attacker_games: int = 0
    loop_lag_ms: float = 0.0
    """The event loop's worst lateness waking a task that slept (a direct look at how
    long the loop was held)."""

    @property
    def worst_ms(self) -> float:
        return max(self.extra_ms, default=0.0)

    @property
    def p99_ms(self) -> float:
        if len(self.extra_ms) < 2:
            return self.worst_ms
        return statistics.quantiles(self.extra_ms, n=100, method="inclusive")[98]


def sleeper(sleep_ms: int) -> BotSpec:
    spec = resolve_bot("zoo/sleeper", "btt")
    spec.env["ZOO_SLEEP_MS"] = str(sleep_ms)
    spec.name = f"sleeper-{sleep_ms}ms"
    return spec


def _tally(result: MatchResult, into: Charged) -> None:
    for outcome, seating in zip(result.outcomes, result.seatings, strict=True):
        for ply in outcome.record.plies:
            if ply.actor is not None and ply.actor >= 0 and ply.elapsed_ms is not None:
                into.extra_ms.append(ply.elapsed_ms - SLEEPS_MS[seating[ply.actor]])
        into.time_outs += sum(1 for fault in outcome.faults if fault.reason == "time-out")


async def _attack(name: str, env: dict[str, str], done: trio.Event, charged: Charged) -> None:
    """The attacking table: its bot against a random one, game after game until `done`."""
    spec = resolve_bot(name, "btt")
    spec.env.update(env)

    def played(index: int, outcome: GameOutcome, seats: list[int]) -> bool:
        charged.attacker_games += 1
        return done.is_set()

    config = MatchConfig(games.get("btt"), {}, seed=9, games=ATTACKER_GAMES, event="fairness attacker",
                         chance_key=b"bench-fairness")
    bots = timed([spec, resolve_bot("random", "btt")], TimeControl(per_move_s=ATTACKER_LIMIT_S))
    await play_match(config, bots, on_game=played)


async def _attack_elsewhere(label: str, done: trio.Event, charged: Charged) -> None:
    """The attacking table in a process of its own (as a worker process would play it),
    until `done`: then its stdin is closed and it says how many games it played."""
    process = await trio.lowlevel.open_process([sys.executable, "-m", "arena.bench.fairness", label],
                                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    await done.wait()
    await process.stdin.aclose()
    output = b""
    async for chunk in process.stdout:
        output += chunk
    await process.wait()
    charged.attacker_games = int(output.split()[-1]) if output.split() else 0


async def _scenario(attack: str | None, games_each: int, elsewhere: bool = False) -> Charged:
    """Two sleepers' tables of `games_each` games each, beside an attacking table (when
    `attack` names one of ATTACKS) that plays until they are done: in this process,
    on the same referee loop, or (`elsewhere`) in a process of its own."""
    charged = Charged()
    done = trio.Event()
    btt = games.get("btt")

    async def sleepers(table: int) -> None:
        config = MatchConfig(btt, {}, seed=table, games=games_each, event="fairness", chance_key=b"bench-fairness")
        bots = timed([sleeper(SLEEPS_MS[0]), sleeper(SLEEPS_MS[1])], TimeControl(per_move_s=LIMIT_S))
        _tally(await play_match(config, bots), charged)

    async def heartbeat() -> None:
        while not done.is_set():
            began = trio.current_time()
            await trio.sleep(HEARTBEAT_S)
            charged.loop_lag_ms = max(charged.loop_lag_ms, (trio.current_time() - began - HEARTBEAT_S) * 1000)

    async with trio.open_nursery() as nursery:
        if attack is not None and elsewhere:
            nursery.start_soon(_attack_elsewhere, attack, done, charged)
        elif attack is not None:
            nursery.start_soon(_attack, *ATTACKS[attack], done, charged)
        nursery.start_soon(heartbeat)
        async with trio.open_nursery() as tables:
            for table in range(2):
                tables.start_soon(sleepers, table)
        done.set()
    return charged


def measure(games: int = 2, elsewhere: bool = True) -> list[tuple[str, str, Charged]]:
    """Each scenario in turn: no attacking table, then each attack on the same referee
    loop, then (`elsewhere`) each attack played by a process of its own; (attack, where
    its table is played, what the sleepers were charged)."""
    results = [("none", "-", trio.run(_scenario, None, games))]
    for label in ATTACKS:
        results.append((label, "same loop", trio.run(_scenario, label, games)))
    if elsewhere:
        for label in ATTACKS:
            results.append((label, "own process", trio.run(_scenario, label, games, True)))
    return results


def fairness_table(games: int = 2) -> Table:
    table = Table(title=f"Fairness: time charged to sleeping bots (50% and 80% of a {LIMIT_S * 1000:.0f} ms limit, "
                        f"2 tables, {games} BTT games each) beyond their own sleep, beside a third table's attack")
    for column in ("attack", "its table", "decisions", "worst", "p99", "median", "time-outs", "attacker's games",
                   "loop's worst lag"):
        table.add_column(column, justify="right")
    for label, where, charged in measure(games):
        table.add_row(label, where, str(len(charged.extra_ms)), f"{charged.worst_ms:.1f} ms",
                      f"{charged.p99_ms:.1f} ms", f"{statistics.median(charged.extra_ms or [0.0]):.1f} ms",
                      str(charged.time_outs), str(charged.attacker_games) if charged.attacker_games else "-",
                      f"{charged.loop_lag_ms:.1f} ms")
    return table


async def _attack_until_stdin_closes(label: str) -> int:
    """`python -m arena.bench.fairness LABEL`: play the attacking table until stdin closes."""
    done = trio.Event()
    charged = Charged()

    async def watch() -> None:
        await trio.lowlevel.wait_readable(sys.stdin.fileno())
        done.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch)
        await _attack(*ATTACKS[label], done, charged)
        nursery.cancel_scope.cancel()
    return charged.attacker_games


if __name__ == "__main__":
    print(trio.run(_attack_until_stdin_closes, sys.argv[1]), flush=True)
