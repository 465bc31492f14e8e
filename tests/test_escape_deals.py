"""The escape suite, The Tree's secrets across processes: no process starts a game whose
deal it, or an earlier process of the same bot, could have seen.

Recording bots (tests/recording_bot.py) play sandboxed, under the default settings, and
write every line they receive to their logs; tests/deal_memory.py counts, for every game,
the hidden tiles the process playing it had been told in an earlier game of the same
deal. The count must be 0 for 2, 3 and 4 seats, in a match, a league, a league killed
and resumed, and a cluster. A cheating bot (bots/zoo/page_cache.py) tries to pass its
hand to the next process of itself through the page cache of a file of its own folder.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from arena import games
from arena.process import view
from arena.process.botnames import resolve_bot
from arena.process.spec import BotSpec, Limits
from arena.records.files import read_record_file
from arena.referee.player import Timing
from arena.timecontrol import TimeControl
from tests.helpers.botmatch import run_match
from tests.helpers.cli import run_cli
from tests.helpers.deal_memory import RECORDER, Memory, recorder, remembered, stored_games
from tests.helpers.escape import attack_report, skip_without_sandbox

GAME = games.get("the-tree")

skip_without_sandbox()


def recorder_folder(tmp_path: Path) -> Path:
    """The recording bot in a folder of its own."""
    folder = tmp_path / "recorder"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(RECORDER, folder / RECORDER.name)
    return folder


def match_memory(tmp_path: Path, seats: int, games: int, seed: int = 5) -> Memory:
    folder = recorder_folder(tmp_path)
    specs = [recorder(f"rec{b}", 100 * seed + b, folder) for b in range(seats)]
    logs = tmp_path / f"logs-{seats}"
    tmp_path.mkdir(parents=True, exist_ok=True)
    result = run_match(GAME, specs, TimeControl(per_move_s=5), seed=seed, games=games, log_dir=logs,
                       timing=Timing(startup_s=20), chance_key=b"deal-memory")
    assert [o.termination for o in result.outcomes] == ["normal"] * games
    return remembered(sorted(logs.glob("*.log")), [o.record for o in result.outcomes])


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_no_process_starts_a_deal_it_has_seen_in_a_match(tmp_path: Path, seats: int) -> None:
    """Two rotations: every deal is played once from each seat. (Before the fix, with 3
    or 4 seats the process restarted for a rotation's second game played the rest of the
    rotation, knowing the hands it had held.)"""
    memory = match_memory(tmp_path, seats, 2 * seats)
    assert memory.games == 2 * seats * seats
    assert (memory.remembering, memory.tiles) == (0, 0), memory


def league_file(tmp_path: Path, seats: int, bots: int, games: int, name: str = "secrets") -> Path:
    folder = recorder_folder(tmp_path)
    entries = "".join(f'[[bots]]\nname = "rec{b}"\ncommand = ["{sys.executable}", "{RECORDER.name}"]\n'
                      f'cwd = "{folder}"\n' for b in range(bots))
    path = tmp_path / f"{name}.toml"
    tmp_path.mkdir(parents=True, exist_ok=True)
    path.write_text(f'name = "{name}"\ngame = "the-tree"\nseats = {seats}\ngames_per_pairing = {games}\n'
                    f'concurrency = 2\n[time]\nper_move = "5s"\nstartup = "20s"\n{entries}')
    return path


def league_memory(output: Path, *logs: Path) -> Memory:
    records = read_record_file(output / "league.pgn")
    assert records and all(r.termination == "normal" for r in records)
    files = sorted((output / "logs").rglob("*.log")) + [p for folder in logs for p in sorted(folder.rglob("*.log"))]
    return remembered(files, records)


def test_no_process_starts_a_deal_it_has_seen_in_a_league(tmp_path: Path) -> None:
    result = run_cli("league", "run", str(league_file(tmp_path, 3, 3, 6)), "-q")
    assert result.exit_code == 0, result.output
    memory = league_memory(tmp_path / "secrets")
    assert memory.games == 6 * 3 and (memory.remembering, memory.tiles) == (0, 0), memory


def resumed_league_memory(tmp_path: Path, seats: int, games: int, stop_after: int) -> Memory:
    """A league of one table killed (SIGKILL) once `stop_after` games are stored, then resumed."""
    path = league_file(tmp_path, seats, seats, games, "resumed")
    league = subprocess.Popen([sys.executable, "-m", "arena", "league", "run", str(path), "-q"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    database = tmp_path / "resumed" / "league.sqlite"
    deadline = time.monotonic() + 120
    while league.poll() is None and time.monotonic() < deadline and stored_games(database) < stop_after:
        time.sleep(0.05)
    league.send_signal(signal.SIGKILL)
    league.wait()
    assert 0 < stored_games(database) < games  # one table (as many bots as seats): `games` games in all
    result = run_cli("league", "run", str(path), "-q")
    assert result.exit_code == 0, result.output
    return league_memory(tmp_path / "resumed")


def test_no_process_starts_a_deal_it_has_seen_in_a_resumed_league(tmp_path: Path) -> None:
    memory = resumed_league_memory(tmp_path, 3, 9, stop_after=2)
    assert memory.games >= 9 * 3 and (memory.remembering, memory.tiles) == (0, 0), memory


def page_cache_bot(tmp_path: Path) -> BotSpec:
    """The page-cache cheat in a folder of its own with a file of 1 MiB to signal through."""
    folder = tmp_path / "cheat"
    folder.mkdir()
    shutil.copy(resolve_bot("zoo/page_cache", "the-tree").command[-1], folder / "page_cache.py")
    with (folder / "weights.bin").open("wb") as weights:
        weights.write(os.urandom(1 << 20))
        weights.flush()
        os.fsync(weights.fileno())  # clean pages: the cheat can drop them from the cache
    return BotSpec("cheat", [sys.executable, str(folder / "page_cache.py")], str(folder))


def page_cache_reports(tmp_path: Path, limits: Limits) -> list[str]:
    logs = tmp_path / "logs"
    result = run_match(GAME, [page_cache_bot(tmp_path), resolve_bot("random", "the-tree")], TimeControl(per_move_s=5),
                       seed=11, games=2, log_dir=logs, limits=limits, chance_key=b"page-cache")
    assert [o.termination for o in result.outcomes] == ["normal", "normal"]
    return attack_report(logs, "pagecache")


@pytest.mark.parametrize("copies_on", ["memory", "disk"])
def test_a_fresh_process_finds_nothing_in_its_folders_page_cache(tmp_path: Path, copies_on: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Game 2 deals game 1's hands with the seats swapped, to a fresh process: its
    folder is a private copy no earlier process touched, so the channel is empty: on
    a tmpfs (/dev/shm, where copies go when there is one) the channel cannot even be
    asked; on a disk, the copy's pages are the copy's own."""
    if copies_on == "disk":
        work = Path(tempfile.mkdtemp(prefix="arena-sandboxes-", dir=tempfile.gettempdir()))  # reachable by nobody
        work.chmod(0o711)
        monkeypatch.setattr(view, "_work", [work])
    try:
        first, second = page_cache_reports(tmp_path, Limits())
    finally:
        if copies_on == "disk":
            shutil.rmtree(work, ignore_errors=True)
    assert first.startswith("game 1: found nothing")
    assert second.startswith("game 1: found nothing"), second  # a fresh process, and nothing passed on


def test_without_the_private_copy_the_channel_carries_a_whole_hand(tmp_path: Path) -> None:
    """The same cheat without a sandbox (its folder as it is): the fresh process of game
    2 reads game 1's hand, its opponent's now. What the private copy closes is real."""
    first, second = page_cache_reports(tmp_path, Limits(sandbox=False))
    hand = set(first.split("my hand ")[1].split(","))
    found = set(second.split("found ")[1].split(";")[0].split(","))
    assert hand <= found and len(found) <= len(hand) + 2, (first, second)  # a page read by another is noise


@pytest.mark.slow
def test_no_remembered_tiles_over_many_games_for_every_schedule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """At least 40 games for 2, 3 and 4 seats in a match, 3 and 4 seats in a league, a
    league killed and resumed, and a league played by a cluster; every count 0."""
    counts: dict[str, Memory] = {}
    at_least_40 = {2: 40, 3: 42, 4: 44}  # whole rotations
    for seats in (2, 3, 4):
        counts[f"match, {seats} seats"] = match_memory(tmp_path / f"m{seats}", seats, at_least_40[seats], seed=seats)
    for seats in (3, 4):
        path = league_file(tmp_path / f"l{seats}", seats, seats, at_least_40[seats])
        result = run_cli("league", "run", str(path), "-q")
        assert result.exit_code == 0, result.output
        counts[f"league, {seats} seats"] = league_memory(tmp_path / f"l{seats}" / "secrets")
    counts["resumed league, 3 seats"] = resumed_league_memory(tmp_path / "r", 3, 42, stop_after=10)
    cache = tmp_path / "cache"
    monkeypatch.setenv("ARENA_CACHE", str(cache))
    path = league_file(tmp_path / "c", 4, 4, 44, "cluster")
    result = run_cli("league", "run", str(path), "-q", "--cluster", "local:2")
    assert result.exit_code == 0, result.output
    counts["cluster league, 4 seats"] = league_memory(tmp_path / "c" / "cluster", cache / "logs")
    with capsys.disabled():
        for where, memory in counts.items():
            print(f"\n{where}: {memory}")
    for where, memory in counts.items():
        assert memory.records >= 40 and (memory.remembering, memory.tiles) == (0, 0), (where, memory)


def test_a_process_never_plays_dice_it_has_seen(tmp_path: Path) -> None:
    """Roots deals the same dice to both games of a seat rotation: a process that played
    the first would know every roll of the second before it came. Each game of a
    rotation is played by a fresh process (the escape bot counts its games); the first
    game of the next rotation, other dice, may go on in the same one."""
    from tests.helpers.escape import escape, honest, play

    play([escape("scratch", game="roots"), honest("roots")], tmp_path, game="roots", games=4)
    counts = [report.split(" of this process")[0] for report in attack_report(tmp_path, "scratch")]
    assert counts == ["game 1", "game 1", "game 2", "game 1"]
