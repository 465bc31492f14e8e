"""The league file as written (TOML): its schema, read and type-checked with messages in
the file's own words. arena.league.config checks what it means."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import msgspec

from arena.errors import ArenaError
from arena.files import read_toml_file
from arena.referee.seeds import DEALS, Deals

Scalar = str | int | float | bool


class LeagueFileError(ArenaError, ValueError):
    """A league file that cannot be used; the message names the key and the fix."""


class BotEntry(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    name: str
    command: str | list[str]
    cwd: str | None = None
    env: dict[str, str] = {}
    memory_mb: int | None = None
    max_processes: int | None = None
    cpus: float | None = None
    scratch_mb: int | None = None
    time_per_move: str | float | None = None
    clock: str | None = None
    ro_paths: list[str] = []


class TimeSection(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    per_move: str | float | None = None
    clock: str | None = None
    basis: str = "wall"
    grace: str | float = "20ms"
    startup: str | float = "10s"


class LimitsSection(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    memory_mb: int | None = None
    max_processes: int | None = None
    cpus: float | None = None
    scratch_mb: int | None = None


class AnchorEntry(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    bot: str
    elo: float = 0.0


class ClusterSection(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    address: str | None = None
    max_folder_mb: int = 200


class LeagueFile(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    name: str
    game: str
    bots: list[BotEntry]
    seats: int | None = None
    options: dict[str, Scalar] = {}
    games_per_pairing: int | None = None
    schedule: Literal["round-robin", "gauntlet"] = "round-robin"
    gauntlet: str | None = None
    concurrency: int | None = None
    affinity: bool = False
    seed: int = 1
    output: str | None = None
    infrastructure_retries: int = 2
    time: TimeSection = TimeSection()
    limits: LimitsSection = LimitsSection()
    sandbox: bool = True
    cluster: ClusterSection = ClusterSection()
    registry: str | None = None
    log_protocol: bool = False
    openings: str | None = None
    openings_order: str = "sequential"
    openings_start: int = 1
    random_opening: int = 0
    deals: Deals = "duplicate"
    event: str | None = None
    anchor: str | AnchorEntry | None = None


SCHEDULES = ("round-robin", "gauntlet")

def read_league_file(path: Path) -> LeagueFile:
    """A league file as written (its keys and their types checked, nothing more);
    LeagueFileError names the problem and the fix."""
    return read_toml_file(path, LeagueFile, "league file", "night.toml", MAX_FILE_BYTES, LeagueFileError, _explain)


MAX_FILE_BYTES = 1 << 20
"""Largest league file read (a real one is a few KB)."""


TYPE_WORDS = {"int": "a whole number", "float": "a number", "str": "text in quotes", "bool": "true or false",
              "array": "a list in [ ]", "object": "a table", "null": ""}
"""msgspec's type names as a league file's author knows them."""


def _type_words(names: str) -> str:
    """'int | null' as 'a whole number'; 'str | float | null' as 'text in quotes or a number'."""
    words = [TYPE_WORDS.get(name.strip(), name.strip()) for name in names.split("|")]
    return " or ".join(w for w in words if w)


def _explain(message: str) -> str:
    """msgspec's 'Expected `int | null`, got `str` - at `$.concurrency`' as
    'concurrency: expected a whole number, got text in quotes'."""
    text, _, where = message.partition(" - at `$")
    key = where.rstrip("`").lstrip(".")
    text = text.replace("Object contains unknown field", "unknown key").replace(
        "Object missing required field", "missing required key")
    if (found := re.fullmatch(r"Expected `([^`]*)`, got `([^`]*)`", text)) is not None:
        text = f"expected {_type_words(found[1])}, got {_type_words(found[2])}"
    if key == "schedule" and text.startswith("Invalid enum value"):
        value = text.removeprefix("Invalid enum value").strip()
        return f"schedule: {value[:40]} is not a schedule; write " + " or ".join(f'"{s}"' for s in SCHEDULES)
    if key == "deals" and text.startswith("Invalid enum value"):
        value = text.removeprefix("Invalid enum value").strip()
        return (f"deals: {value[:40]} is not a way to deal; write " + " or ".join(f'"{d}"' for d in DEALS)
                + " (docs/leagues.md, Deals)")
    text = text[0].lower() + text[1:]
    hint = " (see docs/leagues.md for every key)"
    return f"{key}: {text}{hint}" if key else f"{text}{hint}"
