"""The escape suite's common ground: the cheating bot (bots/zoo/escape.py) with its
attack, an honest rival, a match under the default settings that checks every process
group is gone, the attack's own report from its log, and a sound game."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.process.bot_process import processes_in_group
from arena.process.botnames import resolve_bot
from arena.process.sandbox import probe
from arena.process.spec import BotSpec, Limits
from arena.records.replay import verify
from arena.referee.match import MatchResult
from arena.referee.player import Timing
from arena.timecontrol import TimeControl
from tests.helpers.botmatch import PlayedMatch, run_match
from tests.helpers.processes import processes_with

SEATINGS = [2, 3]
CGROUPS_EXPECTED = os.environ.get("CI") == "true" and os.geteuid() == 0
"""CI as root must have cgroups (a test that needs them fails there rather than skip);
CI's second run, as an ordinary user (.ci/as-user), has none, as most users do not."""


def skip_without_sandbox() -> None:
    """Skip the calling test module where there is no sandbox, except in CI (CI=true),
    where a missing sandbox is a failure."""
    if not probe().sandbox:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the escape suite, but there is no sandbox here: {probe().why}", pytrace=False)
        pytest.skip(f"no sandbox on this machine: {probe().why}", allow_module_level=True)


def escape(attack: str, game: str = "btt", **env: str) -> BotSpec:
    spec = resolve_bot("zoo/escape", game)
    spec.env.update({"ZOO_ATTACK": attack, **env})
    return spec


def honest(game: str = "btt") -> BotSpec:
    return resolve_bot("random", game)


def play(specs: list[BotSpec], logs: Path, game: str = "btt", games: int = 1, per_move: float = 3.0,
         limits: Limits = Limits(), hidden: tuple[Path, ...] = (), options: dict[str, str] | None = None,
         seed: int = 4) -> PlayedMatch:
    """A match at `per_move` a decision on the wall clock (an attack may be a stall),
    but the honest rivals' on the CPU basis, and a start-up limit no loaded machine
    reaches (a sandbox masking hundreds of files, a JVM compiling its bot): a loaded
    machine decides nothing the escape suite looks at."""
    for spec in specs:
        if spec.name == "random" and spec.time_control is None:
            spec.time_control = TimeControl(per_move_s=per_move, basis="cpu")
    result = run_match(game, specs, TimeControl(per_move_s=per_move), options=options, seed=seed, games=games,
                       log_dir=logs, limits=limits, timing=Timing(startup_s=60.0, grace_s=0.05), hidden=hidden,
                       chance_key=b"escape-suite")
    for pgid in result.pgids:
        assert processes_in_group(pgid) == []
    return result


def attack_report(logs: Path, attack: str) -> list[str]:
    lines = []
    for log in sorted(logs.glob("*.log")):
        lines += [line.split(": ", 1)[1] for line in log.read_text().splitlines()
                  if line.startswith(f"ATTACK {attack}:")]
    assert lines, f"the {attack} bot never reported"
    return lines


def assert_game_sound(result: MatchResult, termination: str = "normal") -> None:
    for outcome in result.outcomes:
        assert outcome.termination == termination, outcome.record.tags.get("TerminationDetail")
        assert verify(outcome.record) == []


def daemons(token: str) -> list[int]:
    """The escape bot's daemons named `token` (not the arena, nor bubblewrap, whose
    command lines name it too)."""
    found = []
    for pid in processes_with(token):
        try:
            if b"time.sleep" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found
