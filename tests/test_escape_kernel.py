"""The escape suite, sealed tables: no kernel object carries a hand from one sandbox to
another. The cheat (bots/zoo/kernel_mailbox.py) plays The Tree at both seats of a table
and at both games of a rotation (the second game deals the same hands, seats moved on,
to fresh processes) and tries every mailbox: kernel keys, flock, POSIX and
open-file-description locks, inotify, write-life hints of files its user owns (as an
ordinary user), and FIFOs in a folder too large to copy. Under
the default settings none finds a tile. With the system call filter taken away (and
the sandboxes sharing one host user, as an ordinary user's do), the same bots read each
other's hands: the attack is real, and the filter is what stops it.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.process import backends, view
from arena.process.botnames import resolve_bot
from arena.process.sandbox import probe
from arena.process.spec import BotSpec
from arena.referee.match import MatchResult
from tests.helpers.cli import run_cli
from tests.helpers.escape import assert_game_sound, attack_report, play, skip_without_sandbox

skip_without_sandbox()

MAILBOX = Path(resolve_bot("zoo/kernel_mailbox", "the-tree").command[-1])
FILTERED = ["keys", "flock", "lockf", "ofd", "inotify", "hint"]
OWNER = [] if os.geteuid() == 0 else ["hint"]
"""Mailboxes open only to a user that owns what the sandboxes share (an ordinary user)."""


def mailbox(channel: str, folder: Path | None = None) -> BotSpec:
    if folder is None:
        spec = resolve_bot("zoo/kernel_mailbox", "the-tree")
        spec.env.update({"ZOO_CHANNEL": channel})
        return spec
    return BotSpec(f"mailbox-{channel}", [sys.executable, str(folder / MAILBOX.name)], str(folder),
                   {"ZOO_CHANNEL": channel, "ZOO_FOLDER": str(folder)})


def found_tiles(logs: Path, channel: str) -> list[str]:
    """Every tile any process said it found, over every report."""
    tiles = []
    for line in attack_report(logs, channel):
        found = line.split("; found ")[1].split(";")[0]
        tiles += [] if found == "nothing" else found.split(",")
    return tiles


def hands(result: MatchResult) -> list[set[str]]:
    """The dealt hands of every game of a 2-seat match, both seats together."""
    return [set(o.record.plies[0].action.removeprefix("deal ").split(",")[:18]) for o in result.outcomes]


@pytest.fixture
def unfiltered() -> Iterator[None]:
    """Sandboxes as they were: no system call filter, one host user for all, /proc/keys
    and /proc/locks shown."""
    plain = dataclasses.replace(probe(), syscall_filter=False, own_users=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(backends, "probe", lambda: plain)
        patch.setattr(view, "KERNEL_FILES", ())
        yield


def test_no_kernel_mailbox_carries_a_hand_between_seats_or_games(tmp_path: Path) -> None:
    """Two seats of one table, each the cheat trying every mailbox, two games of one deal."""
    channels = ",".join(FILTERED)
    result = play([mailbox(channels), mailbox(channels)], tmp_path, game="the-tree", games=2, per_move=10)
    for channel in FILTERED:
        reports = attack_report(tmp_path, channel)
        assert len(reports) >= 4, reports
        assert found_tiles(tmp_path, channel) == [], reports
    assert_game_sound(result)


def test_without_the_filter_the_same_cheat_reads_the_other_hand(tmp_path: Path, unfiltered: None) -> None:
    """(A file of the Python installation that some other process opens is noise to
    the inotify cheat: most of what it finds, not all, must be the other hand's.)"""
    channels = ["keys", "flock", "inotify", *OWNER]
    result = play([mailbox(",".join(channels))] * 2, tmp_path, game="the-tree", games=2, per_move=10)
    dealt = set().union(*hands(result))
    for channel in channels:
        found = set(found_tiles(tmp_path, channel))
        assert len(found & dealt) >= 3, (channel, attack_report(tmp_path, channel))


def large_folder(tmp_path: Path) -> Path:
    """A bot's folder over the private copy's 64 MiB (a sparse file, no disk), holding a
    FIFO for each seat."""
    folder = tmp_path / "large"
    folder.mkdir()
    shutil.copy(MAILBOX, folder / MAILBOX.name)
    with (folder / "weights.bin").open("wb") as sparse:
        sparse.truncate(65 << 20)
    for seat in range(4):
        os.mkfifo(folder / f"chan{seat}")
    folder.chmod(0o755)
    tmp_path.chmod(0o755)
    return folder


def test_fifos_of_a_folder_too_large_to_copy_are_hidden(tmp_path: Path) -> None:
    folder = large_folder(tmp_path)
    logs = tmp_path / "logs"
    result = play([mailbox("fifo", folder), mailbox("fifo", folder)], logs, game="the-tree", games=2, per_move=10)
    reports = attack_report(logs, "fifo")
    assert found_tiles(logs, "fifo") == [], reports
    assert all("send failed: EACCES" in line for line in reports), reports
    assert_game_sound(result)


def test_one_entrant_at_several_tables_of_a_league_finds_nothing(tmp_path: Path) -> None:
    """The cheat is one of four entrants of a 3-seat league of The Tree at concurrency
    2: it sits at three of the four tables, which all play cycle c on one deal. Before,
    it read its opponents' hands at the other table through a key named after the
    cycle (5 claims of 5 true); now no two of its processes ever hold one deal at once,
    and no mailbox carries anything."""
    honest = "".join(f'[[bots]]\nname = "random{b}"\ncommand = "random"\n' for b in range(3))
    league = tmp_path / "sealed.toml"
    league.write_text(f'name = "sealed"\ngame = "the-tree"\nseats = 3\ngames_per_pairing = 3\nconcurrency = 2\n'
                      f'[time]\nper_move = "5s"\nstartup = "20s"\n[[bots]]\nname = "cheat"\ncommand = '
                      f'"zoo/kernel_mailbox"\nenv = {{ ZOO_CHANNEL = "keys,flock" }}\n{honest}')
    result = run_cli("league", "run", str(league), "-q")
    assert result.exit_code == 0, result.output
    logs = tmp_path / "sealed" / "logs"
    reports = [line for log in sorted(logs.rglob("*-cheat.log")) for line in log.read_text().splitlines()
               if line.startswith(("ATTACK keys: ", "ATTACK flock: "))]
    assert len({log.parent for log in logs.rglob("*-cheat.log")}) == 3 and len(reports) >= 18, reports
    assert all("; found nothing;" in line for line in reports), reports
