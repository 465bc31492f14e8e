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
and the time-outs, without an attacking table and with each attack.

The measure uses only play_match, MatchConfig, TimeControl and resolve_bot, so the
same file measures an older referee too (PYTHONPATH pointing at its tree).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

import trio
from rich.table import Table

from arena.games import get_game
from arena.referee.botnames import resolve_bot
from arena.referee.match import MatchConfig, MatchResult, play_match
from arena.referee.outcome import GameOutcome
from arena.referee.spec import BotSpec
from arena.referee.timecontrol import TimeControl

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
    "litter: 200,000 files a game": ("zoo/litter", {"ZOO_LITTER": "files", "ZOO_COUNT": "200000",
                                                    "ZOO_BACKGROUND": "1"}),
    "litter: 5,000 nested folders a game": ("zoo/litter", {"ZOO_LITTER": "deep", "ZOO_COUNT": "5000"}),
    "100 processes x 10,000 descriptors, then a time-out": ("zoo/fd_hoard", {
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


async def _scenario(attack: tuple[str, dict[str, str]] | None, games: int) -> Charged:
    """Two sleepers' tables of `games` games each, beside an attacking table (when
    `attack` names a bot) that plays until they are done."""
    charged = Charged()
    done = trio.Event()
    btt = get_game("btt")

    async def sleepers(table: int) -> None:
        config = MatchConfig(btt, {}, TimeControl(per_move_s=LIMIT_S), seed=table, games=games,
                             event="fairness", chance_key=b"bench-fairness")
        _tally(await play_match(config, [sleeper(SLEEPS_MS[0]), sleeper(SLEEPS_MS[1])]), charged)

    async def attacker(name: str, env: dict[str, str]) -> None:
        spec = resolve_bot(name, "btt")
        spec.env.update(env)

        def played(index: int, outcome: GameOutcome, seats: list[int]) -> bool:
            charged.attacker_games += 1
            return done.is_set()

        config = MatchConfig(btt, {}, TimeControl(per_move_s=ATTACKER_LIMIT_S), seed=9, games=ATTACKER_GAMES,
                             event="fairness attacker", chance_key=b"bench-fairness")
        await play_match(config, [spec, resolve_bot("random", "btt")], on_game=played)

    async def heartbeat() -> None:
        while not done.is_set():
            began = trio.current_time()
            await trio.sleep(HEARTBEAT_S)
            charged.loop_lag_ms = max(charged.loop_lag_ms, (trio.current_time() - began - HEARTBEAT_S) * 1000)

    async with trio.open_nursery() as nursery:
        if attack is not None:
            nursery.start_soon(attacker, *attack)
        nursery.start_soon(heartbeat)
        async with trio.open_nursery() as tables:
            for table in range(2):
                tables.start_soon(sleepers, table)
        done.set()
    return charged


def measure(games: int = 2) -> dict[str, Charged]:
    """Each scenario in turn: no attacking table, then each attack."""
    scenarios: dict[str, tuple[str, dict[str, str]] | None] = {"no attacking table": None, **ATTACKS}
    return {label: trio.run(_scenario, attack, games) for label, attack in scenarios.items()}


def fairness_table(games: int = 2) -> Table:
    table = Table(title=f"Fairness: time charged to sleeping bots (50% and 80% of a {LIMIT_S * 1000:.0f} ms limit, "
                        f"2 tables, {games} BTT games each) beyond their own sleep, beside a third table's attack")
    for column in ("third table", "decisions", "worst", "99th percentile", "median", "time-outs", "attacker's games",
                   "loop's worst lag"):
        table.add_column(column, justify="right")
    for label, charged in measure(games).items():
        table.add_row(label, str(len(charged.extra_ms)), f"{charged.worst_ms:.1f} ms", f"{charged.p99_ms:.1f} ms",
                      f"{statistics.median(charged.extra_ms or [0.0]):.1f} ms", str(charged.time_outs),
                      str(charged.attacker_games) if label in ATTACKS else "-", f"{charged.loop_lag_ms:.1f} ms")
    return table
