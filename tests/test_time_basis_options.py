"""How a user asks for the CPU basis, and what a mistake in it says: the league file's
`basis` under `[time]` (for every bot, its own time control too), `--time-basis` of
`arena play` and `arena match`, the library's MatchRequest."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.league.config import load_league
from arena.session.request import MatchRequest, prepare_match
from arena.timecontrol import TimeControl
from tests.helpers.cli import run_cli

LEAGUE = """name = "night"
game = "btt"
bots = [
  {{ name = "a", command = "random", time_per_move = "50ms" }},
  {{ name = "b", command = "random" }},
]
[time]
per_move = "100ms"
{basis}
"""


def test_a_league_on_the_cpu_basis_holds_it_for_every_bot(tmp_path: Path) -> None:
    path = tmp_path / "night.toml"
    path.write_text(LEAGUE.format(basis='basis = "cpu"'))
    league = load_league(path)
    assert league.time_control.basis == "cpu" and league.time_control.per_move_s == 0.1
    own = league.bots[0].time_control
    assert own is not None and own.basis == "cpu" and own.per_move_s == 0.05
    path.write_text(LEAGUE.format(basis=""))
    assert load_league(path).time_control.basis == "wall"


def test_a_wrong_basis_in_a_league_file_names_the_key_and_the_choices(tmp_path: Path) -> None:
    path = tmp_path / "night.toml"
    path.write_text(LEAGUE.format(basis='basis = "process"'))
    result = run_cli("league", "run", str(path))
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "Traceback" not in text
    assert "time.basis: 'process' is not a time basis; give wall" in text and "or cpu" in text


@pytest.mark.parametrize("command", ["play", "match"])
def test_a_wrong_time_basis_option_is_refused_with_the_choices(command: str) -> None:
    args = ["play", "btt", "random", "random"] if command == "play" else ["match", "-g", "btt", "random", "greedy"]
    result = run_cli(*args, "--time-basis", "usr")
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "Traceback" not in text
    assert "--time-basis: 'usr' is not a time basis" in text


def test_the_library_request_sets_the_basis_of_every_seat(tmp_path: Path) -> None:
    handicap = (TimeControl(per_move_s=1.0), TimeControl(per_move_s=2.0))
    prepared = prepare_match(MatchRequest("btt", ["random", "random"], time_controls=handicap, time_basis="cpu",
                                          log_dir=tmp_path / "logs"))
    controls = [spec.time_control for spec in prepared.specs]
    assert [c.per_move_s for c in controls if c] == [1.0, 2.0] and all(c and c.basis == "cpu" for c in controls)
    assert prepared.basis == "cpu"
    with pytest.raises(ArenaError, match="not a time basis"):
        prepare_match(MatchRequest("btt", ["random", "random"], time_basis="both"))  # type: ignore[arg-type]
