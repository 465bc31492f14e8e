"""The sandbox and the secrets as a user meets them: on by default, `--no-sandbox` and
`sandbox = false`, `arena doctor`, random and recorded seeds, per-bot limits, the CPU
time in the record."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

import pytest

from arena import records
from arena.league.config import load_league
from arena.process.cgroups import cgroup_support
from arena.process.sandbox import probe
from arena.records.files import read_record_file
from arena.records.reader import read_text
from tests.helpers.cli import run_cli
from tests.helpers.scripts import first_legal_bot

needs_sandbox = pytest.mark.skipif(not probe().sandbox and os.environ.get("CI") != "true",
                                   reason=f"no sandbox here: {probe().why}")


def play(*args: str) -> str:
    result = run_cli("play", "btt", *args)
    assert result.exit_code == 0, result.output
    return result.output


@needs_sandbox
def test_doctor_reports_the_sandbox_and_the_limits() -> None:
    result = run_cli("doctor", env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "sandbox │ on" in text and "bubblewrap" in text and "chance key" in text


def test_seeds_are_random_when_not_given_and_recorded(tmp_path: Path) -> None:
    out = tmp_path / "g.pgn"
    play("random", "random", "--out", str(out), "-q")
    play("random", "random", "--out", str(out), "-q")
    first, second = read_record_file(out)
    assert first.tags["Seed"] != second.tags["Seed"]
    assert first.tags["BotSeeds"] != second.tags["BotSeeds"]
    assert len(set(first.tags["BotSeeds"].split(","))) == 2


def test_the_same_seeds_give_the_same_games_and_bot_seeds_do_not_follow_the_chance_seed(tmp_path: Path) -> None:
    out = tmp_path / "g.pgn"
    for seed in ("5", "5", "6"):
        result = run_cli("play", "roots", "random", "random", "--seed", seed, "--bot-seed", "9",
                         "--out", str(out), "-q")
        assert result.exit_code == 0, result.output
    a, b, c = read_record_file(out)
    assert [p.action for p in a.plies] == [p.action for p in b.plies]
    assert [p.action for p in a.plies if p.chance] != [p.action for p in c.plies if p.chance]
    assert a.tags["BotSeeds"] == c.tags["BotSeeds"]  # the bots' seeds follow --bot-seed alone


def test_no_sandbox_still_plays(tmp_path: Path) -> None:
    out = tmp_path / "g.pgn"
    play("random", "random-js", "--no-sandbox", "--out", str(out), "-q")
    assert read_record_file(out)[0].termination == "normal"


def test_a_league_file_sets_the_sandbox_and_per_bot_limits(tmp_path: Path) -> None:
    path = tmp_path / "l.toml"
    path.write_text('name = "x"\ngame = "btt"\nsandbox = false\n[limits]\nmemory_mb = 300\n'
                    '[[bots]]\nname = "a"\ncommand = "random"\nmemory_mb = 100\nmax_processes = 4\n'
                    '[[bots]]\nname = "b"\ncommand = "random"\n')
    league = load_league(path)
    assert league.limits.sandbox is False and league.limits.memory_bytes == 300 << 20
    a, b = league.bots
    assert a.limits is not None and a.limits.memory_bytes == 100 << 20 and a.limits.processes == 4
    assert a.limits.sandbox is False and b.limits is None
    path.write_text(path.read_text().replace("memory_mb = 100", "memory_mb = 1"))
    with pytest.raises(ValueError, match=r"bots\[0\].memory_mb: 1 is out of range"):
        load_league(path)


@needs_sandbox
def test_each_move_records_the_bots_cpu_time_and_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "g.pgn"
    play("greedy", "random", "--out", str(out), "-q")
    record = read_record_file(out)[0]
    bot_plies = [p for p in record.plies if not p.chance]
    assert all(p.elapsed_ms is not None for p in bot_plies)
    assert any(p.cpu_ms is not None and p.cpu_ms >= 0 for p in bot_plies)
    text = records.write(record)
    assert " cpu=" in text and records.write(read_text(text)[0]) == text


SPINNER = first_legal_bot("spinner", """
    until = time.process_time() + 0.05  # 50 ms of CPU for every answer
    while time.process_time() < until:
        pass
""", imports="time")


@needs_sandbox
def test_sandboxed_without_cgroups_the_cpu_time_is_the_programs_own(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An ordinary user without a delegated cgroup: the CPU time of each move is read
    from the program the sandbox started (not from bubblewrap, which spends none)."""
    import arena.process.proctree as proctree

    no_cgroups = dataclasses.replace(cgroup_support(), version=0)
    monkeypatch.setattr(proctree, "cgroup_support", lambda: no_cgroups)
    (tmp_path / "bot").mkdir()
    bot = tmp_path / "bot" / "spinner.py"
    bot.write_text(SPINNER)
    out = tmp_path / "g.pgn"
    play(f"{sys.executable} {bot}", "random", "--out", str(out), "-q", "--time-per-move", "5s")
    cpu = [p.cpu_ms for p in read_record_file(out)[0].plies if not p.chance]
    assert None not in cpu, cpu
    assert len([ms for ms in cpu if ms is not None and ms >= 40]) >= 5, cpu  # the spinner's moves


@needs_sandbox
def test_a_sandbox_that_cannot_be_set_up_voids_the_game_instead_of_faulting_the_bot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.process import sandbox

    assert sandbox.probe().sandbox  # probed (and cached) as it is: this machine sandboxes bots
    real = sandbox.namespace_args
    monkeypatch.setattr(sandbox, "namespace_args", lambda: [*real(), "--no-such-option"])
    out = tmp_path / "g.pgn"
    result = run_cli("play", "btt", "random", "random", "--out", str(out), "--log-dir",
                     str(tmp_path / "logs"))
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "void [infrastructure-error]" in text and "sandbox could not be set up" in text
    assert "startup-failure" not in text
    assert not out.exists() or out.read_text() == ""  # no game stored


def test_output_inside_a_readable_folder_is_masked_once() -> None:
    from arena.process.view import masks

    root = Path(__file__).resolve().parent.parent
    assert masks([root / "tests", root / "tests" / "test_sandbox.py", root / "README.md"], [root]) == [
        root / "README.md", root / "tests"]
