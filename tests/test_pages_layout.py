"""The pages' layout in a real browser (Playwright driving the system's chromium): on the
board pages of all five games, each seat's name and its figures (tokens, bricks left,
hand...) are separate elements that never touch, a long name is cut with an ellipsis
(whole in a tooltip) and a name ending in a digit stands clear of the figure after it;
Blox's edge letters are never hidden under bricks; a finished league's live page uses
the whole width and lists its games by round.

Without chromium these tests are skipped, except in CI (CI=true), where a missing
browser is a failure."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.league.config import load_league
from arena.web.live import LivePage, round_key
from arena.web.page import page as live_page_html
from arena.web.replay import replay_page
from tests.helpers.exclusive import apart_from_stalls
from tests.helpers.fake_league import NotingBots, run_fake_league
from tests.helpers.games import random_game_record

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI") == "true":
        pytest.fail("CI must run the browser tests, but chromium is not installed (apt-get install chromium)",
                    pytrace=False)
    pytest.skip("no chromium on this machine", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-dev-shm-usage"]
LONG = "a-very-long-bot-name-that-goes-on-and-on"
"""A name too long for its column; the others end in digits, beside figures that start
with one ("random2" and "5 tokens" must not read as "random25 tokens")."""
BLOX = {"width": "8", "height": "8"}
GAMES = [("btt", (LONG, "random2", "random-7"), {}), ("treeblox", ("random2", LONG), {}),
         ("roots", (LONG, "random-7"), {"radius": "3"}), ("blox", ("random38", LONG), BLOX),
         ("the-tree", ("random38", LONG, "random2"), {})]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with apart_from_stalls(), sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def tab(browser: Any) -> Iterator[Any]:
    """One page for the whole module, its console errors collected in `tab.errors`."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    yield page
    page.close()


SEATS = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const svg = document.querySelector("#board svg");
  return {svg: box(svg), seats: [...document.querySelectorAll("#board text.name")].map((name) => {
    const seat = name.dataset.seat, note = document.querySelector(`#board text.note[data-seat="${seat}"]`);
    const hand = document.querySelector(`#board text.hand-name[data-seat="${seat}"]`);
    const swatch = document.querySelector(`#board rect.hand-swatch[data-seat="${seat}"]`);
    return {seat: Number(seat), shown: name.textContent, title: name.parentNode.querySelector("title").textContent,
            name: box(name), note: note && box(note), noteText: note && note.textContent,
            hand: hand && box(hand), handTitle: hand && hand.parentNode.querySelector("title").textContent,
            swatch: swatch && box(swatch)};
  })};
}"""


def apart(left: list[float], right: list[float], gap: float) -> bool:
    """Whether box `right` starts at least `gap` px after box `left` ends, or the two
    lie on different lines."""
    return right[0] - left[2] >= gap or right[1] >= left[3] or left[1] >= right[3]


def replay_file(folder: Path, game_id: str, names: tuple[str, ...], options: dict[str, str]) -> tuple[Path, int]:
    """A replay page of a random game between `names`, and its number of plies."""
    record = random_game_record(game_id, len(names), 3, options)
    for seat, name in enumerate(names):
        record.tags[f"Player{seat}"] = name
    path = folder / f"{game_id}.html"
    path.write_text(replay_page(record), encoding="utf-8")
    return path, len(record.plies)


@pytest.fixture(scope="module")
def blox_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """Blox's page, built once (its every ply drawn takes a few seconds)."""
    return replay_file(tmp_path_factory.mktemp("blox"), "blox", *next((n, o) for g, n, o in GAMES if g == "blox"))


@pytest.mark.parametrize(("game_id", "names", "options"), GAMES)
def test_names_and_figures_stand_apart_on_every_game_s_page(request: pytest.FixtureRequest, tab: Any, tmp_path: Path,
                                                             game_id: str, names: tuple[str, ...],
                                                             options: dict[str, str]) -> None:
    if game_id == "blox":
        path, plies = request.getfixturevalue("blox_page")
    else:
        path, plies = replay_file(tmp_path, game_id, names, options)
    tab.goto(path.as_uri() + f"#ply={plies // 2}")
    for _ in range(2):  # the middle of the game and its end
        found = tab.evaluate(SEATS)
        assert [s["title"] for s in found["seats"]] == list(names)  # the whole name in the tooltip
        for seat in found["seats"]:
            name = names[seat["seat"]]
            if name == LONG:
                assert seat["shown"].endswith("\u2026") and LONG.startswith(seat["shown"][:-1]), seat
            else:
                assert seat["shown"] == name, seat
            assert seat["note"] is not None, seat  # the figures: an element of their own
            if game_id != "treeblox":  # (its notes start with the seat's colour)
                assert seat["noteText"].lstrip("-")[:1].isdigit(), seat
            assert apart(seat["name"], seat["note"], 6), seat  # clear of the name
            assert seat["note"][2] <= found["svg"][2] + 0.5, seat  # the picture is wide enough for it
            if game_id == "the-tree":  # the hands' rows: each name before its colour
                assert seat["handTitle"] == name and apart(seat["hand"], seat["swatch"], 2), seat
        tab.keyboard.press("End")
    assert tab.errors == []


def test_blox_edge_letters_are_never_under_bricks(tab: Any, blox_page: tuple[Path, int]) -> None:
    tab.goto(blox_page[0].as_uri())
    tab.keyboard.press("End")
    covered = tab.evaluate("""() => Object.fromEntries([..."WESN"].map((edge) => {
      const letter = document.querySelector(`#board text.edge[data-edge="${edge}"]`);
      letter.scrollIntoView({block: "center"});
      const r = letter.getBoundingClientRect(), x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
      const top = document.elementFromPoint(x, y) === letter;
      const compass = letter.closest(".compass");
      compass.style.display = "none";  // what lies under it: a brick, in this game, for W
      const under = document.elementFromPoint(x, y);
      compass.style.display = "";
      return [edge, [top, under.tagName + "." + (under.getAttribute("class") || "")]];
    }))""")
    assert all(top for top, _ in covered.values()), covered
    assert covered["W"][1].startswith("use.l"), covered  # a brick stands there: the letter is drawn over it
    assert tab.errors == []


def test_a_finished_league_s_page_lists_rounds_in_order_across_the_whole_width(tab: Any, tmp_path: Path) -> None:
    bots = "".join(f'[[bots]]\nname = "random{k}"\ncommand = "random"\n' for k in range(4))
    (tmp_path / "done.toml").write_text(f'name = "done"\ngame = "btt"\ngames_per_pairing = 2\nconcurrency = 1\n'
                                        f'seed = 5\n[time]\nper_move = "5s"\n{bots}')
    league = load_league(tmp_path / "done.toml")
    run_fake_league(league, NotingBots(2))
    live = LivePage(league, lambda: []).snapshot()
    rounds = [f["round"] for f in live["finished"]]
    assert len(rounds) == 12 and rounds == sorted(rounds, key=lambda r: round_key(r, 0))
    newest = [f["round"] for f in sorted(live["finished"], key=lambda f: f["finished"], reverse=True)]
    assert newest != rounds[::-1]  # the league played round by round across tables: the orders differ
    html = live_page_html("live", "done: btt", "live league page", {})

    def reply(route: Any) -> None:
        if "/api/live" in route.request.url:
            route.fulfill(status=200, content_type="application/json", body=json.dumps(live))
        else:
            route.fulfill(status=200, content_type="text/html", body=html)

    tab.route("http://arena.test/**", reply)
    try:
        tab.goto("http://arena.test/")
        tab.wait_for_selector("#finished table")
        shown = tab.eval_on_selector_all("#finished tr td:first-child", "tds => tds.map((td) => td.textContent)")
        assert shown == rounds
        width = tab.evaluate("window.innerWidth")
        assert not tab.locator("#viewer").is_visible()  # no empty board column
        for part in ("#side", "#standings"):
            box = tab.locator(part).bounding_box()
            assert box is not None and box["width"] >= 0.8 * width, (part, box, width)
        assert "finished" in tab.inner_text("#idle-note")
        tab.click("#order button[data-order=finished]")
        shown = tab.eval_on_selector_all("#finished tr td:first-child", "tds => tds.map((td) => td.textContent)")
        assert shown == newest
        live["games"] = [{"title": "round 1.1: random0 v random1", "label": "the start", "svg": "<svg></svg>"}]
        live["version"] = "busy"
        tab.wait_for_function("document.body.dataset.version === 'busy'", timeout=5000)
        assert tab.locator("#viewer").is_visible()  # a game under way: its board takes the wide column
        assert not tab.evaluate("document.body.classList.contains('idle')")
    finally:
        tab.unroute("http://arena.test/**")
    assert tab.errors == []
