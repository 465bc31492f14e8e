"""People in seats: `human` in the terminal (numbers or notation, a wrong answer asked
again, The Tree's other hands hidden) plays whole games recorded like any bot's; the
`human-web` seat's page answers with the position and takes a click's action."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import trio
from rich.console import Console

from arena import games
from arena.people.seat import SeatView
from arena.people.terminal import pick
from arena.people.web import WebPerson
from arena.records.files import read_record_file
from arena.records.replay import verify
from arena.web.server import Request


def play_in_terminal(tmp_path: Path, game: str, answers: str, *more: str) -> tuple[subprocess.CompletedProcess[str],
                                                                                   Path]:
    out = tmp_path / "g.pgn"
    done = subprocess.run([sys.executable, "-m", "arena", "play", game, "human", "random", "--seed", "3",
                           "--out", str(out), *more], input=answers, capture_output=True, text=True, timeout=120)
    return done, out


def test_pick_takes_a_number_or_the_action_written_out() -> None:
    legal = ["1a2>a1", "2a2>a1", "Nc3"]
    assert pick("2", legal) == "2a2>a1" and pick(" nc3 ", legal) == "Nc3" and pick("1a2>a1\n", legal) == "1a2>a1"
    assert pick("4", legal) is None and pick("0", legal) is None and pick("a2", legal) is None
    assert pick("²", legal) is None and pick("9" * 5000, legal) is None  # digits int() refuses: not an answer


def test_a_person_plays_btt_in_the_terminal(tmp_path: Path) -> None:
    done, out = play_in_terminal(tmp_path, "btt", "nonsense\nNa1\n" + "1\n" * 40)
    assert done.returncode == 0, done.stderr
    assert "'nonsense' is not one of the" in done.stdout and "no undo" in done.stdout
    record = read_record_file(out)[0]
    assert record.plies[0].action == "Na1" and record.players == ["human", "random"]
    assert verify(record) == [] and record.termination == "normal"
    assert record.tags["TimeControl"] == "move=604800s / move=5s"  # no limit for the person, 5 s for the bot


def test_a_person_in_the_terminal_sees_only_its_own_hand(tmp_path: Path) -> None:
    done, out = play_in_terminal(tmp_path, "the-tree", "1\n" * 80)
    assert done.returncode == 0, done.stderr
    assert "(hidden)" in done.stdout and "face down" in done.stdout and "(top first)" not in done.stdout
    assert verify(read_record_file(out)[0]) == []


def test_a_person_who_leaves_loses_like_a_crashed_bot(tmp_path: Path) -> None:
    done, out = play_in_terminal(tmp_path, "btt", "1\n1\n")
    assert done.returncode == 0
    record = read_record_file(out)[0]
    assert record.termination == "crash" and record.ranks == (2, 1)
    assert "the person left the game" in record.tags["TerminationDetail"]


def test_the_web_seat_shows_the_position_and_plays_the_clicked_action() -> None:
    async def main() -> None:
        person = WebPerson()
        state = games.get("btt").new_state(2, {})
        view = SeatView("btt", 0, ["you", "bot"], state, state.legal_actions(), {}, None, None, {"move_ms": 5000})
        async with trio.open_nursery() as nursery:
            chosen: list[str] = []

            async def ask() -> None:
                chosen.append(await person.choose(view))

            nursery.start_soon(ask)
            await trio.sleep(0.01)
            snapshot = person.snapshot()
            assert snapshot["request"]["legal"] == state.legal_actions()
            assert snapshot["film"]["names"] == ["you", "bot"] and snapshot["deadline_ms"] == 5000
            request_id = snapshot["request"]["id"]
            wrong = await person.app.routes["/api/action"](Request("POST", "/api/action", {}, b'{"action": 1}'))
            assert wrong.status == 400
            stale = f'{{"action": "Na1", "request": {request_id - 1}}}'.encode()
            await person.app.routes["/api/action"](Request("POST", "/api/action", {}, stale))
            await trio.sleep(0.01)
            assert chosen == []  # an answer to another request is not played
            fresh = f'{{"action": "Nb2", "request": {request_id}}}'.encode()
            await person.app.routes["/api/action"](Request("POST", "/api/action", {}, fresh))
        assert chosen == ["Nb2"]

    trio.run(main)


def test_the_web_seat_counts_news_as_served_only_once_the_page_was_sent_it() -> None:
    """The game stops serving once the page has the last news: a reply computed but not
    yet sent (the result of the game, say) must keep the server up."""
    async def main() -> None:
        person = WebPerson()
        state = games.get("btt").new_state(2, {})
        view = SeatView("btt", 0, ["you", "bot"], state, state.legal_actions(), {}, None, None, {"move_ms": 5000})
        await person.game_over(view)
        computed = await person.app.routes["/api/state"](Request("GET", "/api/state", {"since": "-1"}, b""))
        assert person.served == -1 and computed.on_sent is not None

        sent: list[MutableMapping[str, Any]] = []

        async def receive() -> dict[str, object]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: MutableMapping[str, Any]) -> None:
            assert person.served == -1  # nothing counts as served before the whole body went out
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": "/api/state", "query_string": b"since=-1"}
        await person.app(scope, receive, send)
        assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
        assert person.served == person.version

    trio.run(main)


def test_text_that_looks_like_markup_is_shown_as_typed_and_named(tmp_path: Path) -> None:
    """The person's own typing and an opponent's name from its `ready` are text: '[/x]'
    was read as Rich markup and ended the game in a MarkupError."""
    bot = tmp_path / "bot" / "named.py"
    bot.parent.mkdir()
    bot.write_text("import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n"
                   "    if m['type'] == 'hello':\n"
                   "        print(json.dumps({'type': 'ready', 'name': '[/x] [bold]'}), flush=True)\n"
                   "    elif m['type'] == 'request':\n"
                   "        print(json.dumps({'type': 'action', 'action': m['legal'][0]}), flush=True)\n")
    out = tmp_path / "g.pgn"
    done = subprocess.run([sys.executable, "-m", "arena", "play", "btt", f"{sys.executable} {bot}", "human",
                           "--seed", "3", "--out", str(out)], input="[/oops]\n" + "1\n" * 40, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "'[/oops]' is not one of the" in done.stdout and "[/x] [bold] played" in done.stdout
    assert read_record_file(out)[0].termination == "normal"


def test_a_person_at_a_seat_of_a_game_without_a_seat_view_sees_only_that_seat() -> None:
    """No game id in the people layer: the seat view comes from the game's render
    module, else (hidden information) the seat's own observation, never another hand."""
    from arena.games import CHANCE, GAMES
    from arena.games.the_tree import TheTree, TheTreeState
    from arena.render import render_seat
    from arena.render.the_tree import render_the_tree_seat

    class Hidden(TheTree):
        id = "hidden-copy"

    state, rng = TheTree().new_state(3), random.Random(3)
    while state.current() == CHANCE:
        state.apply(state.sample_chance(rng))
    assert isinstance(state, TheTreeState)

    def text(renderable: object) -> str:
        console = Console(record=True, width=100, color_system=None)
        console.print(renderable)
        return console.export_text()

    assert text(render_seat("the-tree", state, 1)) == text(render_the_tree_seat(state, 1))  # the game's own
    GAMES["hidden-copy"] = Hidden()
    try:
        shown = json.loads(render_seat("hidden-copy", state, 1))
    finally:
        del GAMES["hidden-copy"]
    assert shown == json.loads(json.dumps(state.observation(1)))
    assert shown != json.loads(json.dumps(state.observation(0)))


def test_the_people_layer_names_no_game() -> None:
    """A game needs no edit outside its own modules: the people layer finds a seat's
    view through the game's render module (arena.render.render_seat), never by its id
    or by importing a game's own module."""
    sources = sorted((Path(__file__).resolve().parents[1] / "arena" / "people").glob("*.py"))
    named: list[tuple[str, str]] = []
    for game in games.GAMES.values():
        mention = re.compile(rf"""["']{re.escape(game.id)}["']|\.{game.module_name}\b""")
        named += [(source.name, game.id) for source in sources if mention.search(source.read_text())]
    assert named == []
