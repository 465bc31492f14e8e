"""The resolved league: what a checked league file means, as the schedule, the runner
and the tables use it (arena.league.config reads and checks the file)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from arena.games import Game
from arena.process.spec import BotSpec, Limits
from arena.referee.openings import Opening
from arena.referee.player import Timing
from arena.referee.seeds import Deals
from arena.timecontrol import TimeControl


@dataclass(frozen=True)
class Anchor:
    """The bot whose rating is pinned (so tables of different nights compare), and its
    value: Elo for 2 seats, the OpenSkill rating for more."""

    bot: str
    value: float = 0.0

    def describe(self, kind: str = "") -> str:
        """'greedy = 0' (or 'greedy = 1500 Elo')."""
        return f"{self.bot} = {self.value:g}" + (f" {kind}" if kind else "")


@dataclass
class League:
    """A checked league, ready to schedule and run."""

    name: str
    game: Game
    seats: int
    options: dict[str, str]
    bots: list[BotSpec]
    games_per_pairing: int
    schedule: str = "round-robin"
    gauntlet: int = 0
    """Index of the bot facing the field when schedule is gauntlet."""
    concurrency: int = 1
    affinity: bool = False
    """Pin each table's bots to cores of their own while it plays (this machine only)."""
    seed: int = 1
    output: Path = Path("league")
    infrastructure_retries: int = 2
    """How many more times a game voided by an error of the arena is played again
    (on later runs) before it is reported and left out."""
    time_control: TimeControl = TimeControl()
    timing: Timing = Timing()
    limits: Limits = Limits()
    source: Path | None = None
    warnings: list[str] = field(default_factory=list)
    cluster: str | None = None
    """The Dask cluster that plays the games (scheduler file, tcp://host:port or
    local:N); None: this machine."""
    max_folder_mb: int = 200
    """The largest bot folder a cluster ships to its workers."""
    log_protocol: bool = False
    """Keep every bot's protocol traffic in its log folder."""
    openings: tuple[Opening, ...] = ()
    """The openings its games start from, one per seat rotation in turn."""
    random_opening: int = 0
    """Plies of a random opening at the start of every game."""
    deals: Deals = "duplicate"
    """"duplicate": the games of a seat rotation share one seed, at every table; "fresh":
    every game has a seed of its own (no deal is ever played twice)."""
    event: str = ""
    """The Event tag of its records (the league's name unless the file gives `event`)."""
    anchor: Anchor | None = None
    """The bot whose rating is pinned in every table, if any."""

    @property
    def database(self) -> Path:
        return self.output / "league.sqlite"

    @property
    def records(self) -> Path:
        return self.output / "league.pgn"

    @property
    def logs(self) -> Path:
        return self.output / "logs"

    def bot_named(self, name: str) -> BotSpec:
        """The league file's bot of this name."""
        return next(bot for bot in self.bots if bot.name == name)

    IDENTITY_DEFAULTS: ClassVar[dict[str, object]] = {"openings": [], "random_opening": 0, "deals": "duplicate"}
    """Keys of the identity written only when they differ from these values (so that a
    league made before they existed resumes), and compared as these values when missing
    (so that taking one out of the file is a change, refused like any other)."""

    def identity(self) -> dict[str, object]:
        """What fixes the schedule and the meaning of stored games: a stored league
        resumes only under the same identity. Its bots and games_per_pairing are not
        part of it: a league grows (arena.league.growth)."""
        gauntlet = self.bots[self.gauntlet].name if self.schedule == "gauntlet" else None
        return {
            "game": self.game.id, "seats": self.seats, "options": self.options,
            "schedule": self.schedule, "gauntlet": gauntlet,
            "seed": self.seed,
            # Only when set, so that a league made before openings existed resumes.
            **({"openings": [o.name for o in self.openings]} if self.openings else {}),
            **({"random_opening": self.random_opening} if self.random_opening else {}),
            **({"deals": self.deals} if self.deals != "duplicate" else {}),
        }

    @property
    def shares_deals(self) -> bool:
        """Whether games at different tables (and of one seat rotation) share a deal: a
        game with chance dealt duplicate."""
        return self.game.has_chance and self.deals == "duplicate"
