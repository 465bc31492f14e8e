"""How many games run at once, and on which cores: the cap of concurrency at the
machine's cores on the wall basis, and the core slots of `--affinity`, which pin each
table's bots to cores of their own (fastchess's `-concurrency` cap and `-use-affinity`).

On the wall basis a bot is charged every moment it waits for a core, so more tables
than cores turns the machine's load into time-outs; on the CPU basis a bot is charged
its own CPU time only, and more tables than cores only make the games slower."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from arena.process.cores import allowed_cores as allowed_cores  # the cap counts them; callers ask here
from arena.referee.match import MatchConfig
from arena.timecontrol import Basis


def concurrency_refusal(concurrency: int, basis: Basis, fixes: tuple[str, str, str]) -> str | None:
    """Why `concurrency` games at once may not run here (None when they may): more than
    the cores this process may use, on the wall basis. `fixes` name, in the caller's
    words, how to lower the concurrency, switch to the CPU basis, and force it."""
    cores = len(allowed_cores())
    if basis == "cpu" or concurrency <= cores:
        return None
    lower, cpu, force = fixes
    return (f"concurrency {concurrency} runs more games at once than this machine has cores ({cores}): on the wall "
            f"basis a bot waiting for a core loses time it did not use, and games are decided by the machine's load. "
            f"Lower it ({lower}), use the CPU basis ({cpu}), or add {force} to run it anyway")


def core_slots(tables: int, cores: Sequence[int] | None = None) -> list[tuple[int, ...]]:
    """The cores of each table slot: with no more tables than cores, the cores cut into
    `tables` runs of their own (the first ones one core longer when they do not divide
    evenly); with more tables, one core each, round-robin, so slots share cores."""
    pool = tuple(cores) if cores is not None else allowed_cores()
    tables = max(1, tables)
    if tables > len(pool):
        return [(pool[k % len(pool)],) for k in range(tables)]
    size, extra = divmod(len(pool), tables)
    slots, start = [], 0
    for k in range(tables):
        end = start + size + (k < extra)
        slots.append(pool[start:end])
        start = end
    return slots


def pinned(config: MatchConfig, cores: tuple[int, ...]) -> MatchConfig:
    """A table's config with every bot it starts pinned to `cores` (a bot with limits
    of its own takes the table's cores too: arena.referee.match)."""
    return replace(config, limits=replace(config.limits, affinity=cores))


class CoreSlots:
    """The slots of tables started and ended as they come (a league's jobs): a table
    takes a free slot when it starts and gives it back when its bots are gone."""

    def __init__(self, tables: int, cores: Sequence[int] | None = None) -> None:
        self.cores = core_slots(tables, cores)
        self._holders = [0] * len(self.cores)

    def take(self) -> int:
        """The free slot of lowest number (with more tables running than slots, the
        least held one: they share its cores)."""
        slot = min(range(len(self._holders)), key=lambda k: (self._holders[k], k))
        self._holders[slot] += 1
        return slot

    def give_back(self, slot: int) -> None:
        """A table's bots are gone: its slot is free for the next table."""
        self._holders[slot] = max(0, self._holders[slot] - 1)
