"""`arena replay --html`: one self-contained page with a frame per turn, drawn by the
game's own renderer, for every game."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.games import GAMES
from arena.records.files import append_record
from arena.records.replay import turn_frames
from arena.records.viewer import viewer_html
from tests.test_selfplay import random_game_record

SMALL = {"roots": {"radius": "3"}, "blox": {"width": "8", "height": "8"}}


def frames_of(page: str) -> list[list[str]]:
    match = re.search(r'<script id="frames" type="application/json">(.*?)</script>', page, re.S)
    assert match is not None
    frames: list[list[str]] = json.loads(match.group(1))
    return frames


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_turn_is_a_frame_of_the_games_own_view(game_id: str) -> None:
    seats = max(2, GAMES[game_id].min_seats)
    record = random_game_record(game_id, seats, 5, SMALL.get(game_id, {}))
    page = viewer_html(record)
    frames = frames_of(page)
    titles = [title for title, _ in turn_frames(record)]
    assert [title for title, _ in frames] == titles and titles[0] == "start"
    assert len(frames) > 2 and all("<span" in body for _, body in frames)
    assert frames[0][1] != frames[-1][1]
    # self-contained: nothing fetched, and the frames cannot close their script early
    assert not re.search(r"(src|href)=", page) and "http" not in page
    assert page.count("</script>") == 2


def test_the_page_names_the_players_and_the_result() -> None:
    record = random_game_record("btt", 2, 9, {})
    record.tags["Player0"], record.tags["Player1"] = "alpha <bot>", "beta"
    page = viewer_html(record)
    assert "btt: alpha &lt;bot&gt; v beta" in page and "<bot>" not in page
    assert f"<td>Ranks</td><td>{record.tags['Ranks']}</td>" in page


def test_replay_html_writes_the_file_and_names_a_bad_path(tmp_path: Path) -> None:
    records = tmp_path / "games.pgn"
    append_record(records, random_game_record("treeblox", 2, 3, {}))
    out = tmp_path / "game.html"
    runner = CliRunner()
    result = runner.invoke(app, ["replay", str(records), "--html", str(out)])
    assert result.exit_code == 0 and "wrote" in result.output
    assert frames_of(out.read_text(encoding="utf-8"))[0][0] == "start"
    result = runner.invoke(app, ["replay", str(records), "--html", str(tmp_path / "missing" / "x.html")])
    assert result.exit_code == 2 and "cannot write it" in result.output
