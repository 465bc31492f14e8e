"""`arena replay --html`: one self-contained page with a frame per ply (numbered as
`arena replay --ply`), drawn as SVG by the game's picture, for every game; the page
names the players and the result and stays small (in a browser: test_browser.py)."""

from __future__ import annotations

import html
import json
import random
import re
from pathlib import Path

import pytest

from arena import games
from arena.games import CHANCE, GAMES, TERMINAL
from arena.records.files import append
from arena.records.record import GameRecord, Ply, turn_numbers
from arena.referee.outcome import GameSetup, game_tags
from arena.termination import Termination
from arena.timecontrol import TimeControl
from arena.web.replay import replay_page
from tests.helpers.cli import run_cli
from tests.helpers.games import random_game_record

SMALL = {"roots": {"radius": "3"}, "blox": {"width": "8", "height": "8"}}


def page_data(page: str) -> dict[str, object]:
    match = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S)
    assert match is not None
    data: dict[str, object] = json.loads(match.group(1))
    return data


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_ply_is_a_frame_and_the_page_is_self_contained(game_id: str) -> None:
    seats = max(2, GAMES[game_id].min_seats)
    record = random_game_record(game_id, seats, 5, SMALL.get(game_id, {}))
    page = replay_page(record)
    film = page_data(page)["film"]
    assert isinstance(film, dict)
    frames = film["frames"]
    assert [f[0] for f in frames] == list(range(len(record.plies) + 1))
    assert frames[0][4] == f"ply 0 of {len(record.plies)} · the start"
    last = record.plies[-1]
    assert frames[-1][4].startswith(f"ply {len(record.plies)} of {len(record.plies)} · turn {last.turn} · ")
    assert frames[-1][4].endswith(f": {last.action}")
    # Nothing is fetched: no external address, no src, every href points inside the page.
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "") and " src=" not in page
    pictures = film["defs"] + "".join(film["chunks"])
    assert set(re.findall(r'href="([^"]*)"', pictures)) <= {f"#{i}" for i in re.findall(r' id="([^"]*)"', film["defs"])}
    assert page.count("</script>") == 2


def test_the_page_names_the_players_and_the_result() -> None:
    record = random_game_record("btt", 2, 9, {})
    record.tags["Player0"], record.tags["Player1"] = "alpha <bot>", "beta"
    page = replay_page(record)
    assert "Branches and Twigs and Thorns: alpha &lt;bot&gt; v beta" in page
    outside_data = re.sub(r'<script id="data".*?</script>', "", page, flags=re.S)
    assert "<bot>" not in outside_data  # in the data it is a JSON string, shown with textContent
    data = page_data(page)
    assert data["tags"]["Ranks"] == record.tags["Ranks"]  # type: ignore[index]
    assert f"result: {html.escape(str(record.places))} · " in page  # "1st beta, 2nd alpha <bot>": who came where


def long_roots_record(seed: int) -> GameRecord:
    """A Roots game as long as the rules let one be: every seat ends its turns with
    `end` and never leaves a round (about 160 plies: 12 rounds of six dice)."""
    game = games.get("roots")
    options = game.resolve_options({})
    state = game.new_state(2, options)
    rng = random.Random(seed)
    actors: list[int] = []
    actions: list[str] = []
    while (actor := state.current()) != TERMINAL:
        if actor == CHANCE:
            action = state.sample_chance(rng)
        else:
            legal = state.legal_actions()
            main = [a for a in legal if a.split()[0] in ("plant", "draw", "keep", "merge") and not a.endswith(" x")]
            action = "end" if "end" in legal else rng.choice(main or legal)
        state.apply(action)
        actors.append(actor)
        actions.append(action)
    plies = [Ply(t, a, p == CHANCE) for t, a, p in zip(turn_numbers(actors), actions, actors)]
    result = state.result()
    tags = game_tags(GameSetup(game, options, (TimeControl(),) * 2, seed), ["a-long-bot-name", "another-long-name"],
                     result.ranks, result.scores, Termination.NORMAL, "", len(plies))
    return GameRecord(tags=tags, plies=plies)


def test_a_long_roots_game_page_stays_small() -> None:
    record = max((long_roots_record(seed) for seed in range(8)), key=lambda r: len(r.plies))
    assert len(record.plies) >= 150
    size = len(replay_page(record).encode())
    # Under 1 MB for 200 plies: the bytes per ply measured here, scaled to 200.
    assert size / len(record.plies) * 200 < 1_000_000, size


def test_replay_html_writes_the_file_and_names_a_bad_path(tmp_path: Path) -> None:
    records = tmp_path / "games.pgn"
    append(records, random_game_record("treeblox", 2, 3, {}))
    out = tmp_path / "game.html"
    result = run_cli("replay", str(records), "--html", str(out))
    assert result.exit_code == 0 and "wrote" in result.output
    film = page_data(out.read_text(encoding="utf-8"))["film"]
    assert isinstance(film, dict) and film["turnable"] is True
    result = run_cli("replay", str(records), "--html", str(tmp_path / "missing" / "x.html"))
    assert result.exit_code == 2 and "cannot write it" in result.output
