"""The pages in a real browser (Playwright driving the system's chromium): every ply of
a replay of each game and seat count is drawn with the right bots named, without a
console error or a network request; Treeblox turns and Blox shows levels; the live
page of a running 3-bot BTT league shows the standings change; a person plays a whole
BTT game as `human-web` by clicking, and the record verifies.

Without chromium these tests are skipped, except in CI (CI=true), where a missing
browser is a failure."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.records.files import read_record_file
from arena.records.replay import verify
from arena.web.replay import replay_page
from tests.helpers.exclusive import apart_from_stalls
from tests.helpers.games import random_game_record
from tests.helpers.slow_bot import write_slow_bot

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI") == "true":
        pytest.fail("CI must run the browser tests, but chromium is not installed (apt-get install chromium)",
                    pytrace=False)
    pytest.skip("no chromium on this machine", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-dev-shm-usage"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with apart_from_stalls(), sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


class Watched:
    """A page with its console errors and every request it made recorded."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page(viewport={"width": 1200, "height": 900})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))


STEP_THROUGH = """(count) => {
  const out = [];
  for (let i = 0; i < count; i++) {
    const board = document.getElementById("board").innerHTML;
    let hash = 0;
    for (let k = 0; k < board.length; k++) hash = (hash * 31 + board.charCodeAt(k)) | 0;
    out.push([document.getElementById("label").textContent, board.includes("<svg"), hash + ":" + board.length]);
    document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight"}));
  }
  return out;
}"""

SEATINGS = [("btt", 2, {}), ("btt", 3, {}), ("btt", 4, {"board": "rect"}), ("btt", 5, {}), ("btt", 6, {}),
            ("treeblox", 2, {}), ("roots", 2, {"radius": "3"}), ("blox", 2, {"width": "8", "height": "8"}),
            ("blox", 3, {"width": "8", "height": "8"}), ("blox", 4, {"width": "8", "height": "8"}),
            ("the-tree", 1, {}), ("the-tree", 2, {}), ("the-tree", 3, {}), ("the-tree", 4, {})]


@pytest.mark.parametrize(("game_id", "seats", "options"), SEATINGS)
def test_replay_page_draws_every_ply_and_names_the_bots(browser: Any, tmp_path: Path, game_id: str, seats: int,
                                                         options: dict[str, str]) -> None:
    record = random_game_record(game_id, seats, 21, options)
    names = [f"bot-{k}-{game_id}" for k in range(seats)]
    for seat, name in enumerate(names):
        record.tags[f"Player{seat}"] = name
    path = tmp_path / "game.html"
    path.write_text(replay_page(record), encoding="utf-8")
    watched = Watched(browser)
    page = watched.page
    page.goto(path.as_uri())
    # Step with the right arrow key through every ply, reading the label and the board.
    steps = page.evaluate(STEP_THROUGH, len(record.plies) + 1)
    for ply, (label, has_svg, _) in enumerate(steps):
        assert label.startswith(f"ply {ply} of {len(record.plies)}"), label
        assert has_svg
    boards = [board for _, _, board in steps]
    assert page.inner_text("#label").startswith(f"ply {len(record.plies)} of")  # the last stays
    legend = page.eval_on_selector_all("#board text.name", "els => els.map(e => e.textContent)")
    assert legend == names
    assert len(set(boards)) == len(boards)  # each ply drawn, each different from the one before
    page.goto(path.as_uri() + "#ply=3")
    assert page.inner_text("#label").startswith("ply 3 of")
    assert watched.errors == []
    assert set(watched.requests) <= {path.as_uri(), path.as_uri() + "#ply=3"}
    page.close()


def test_treeblox_turns_and_blox_shows_levels(browser: Any, tmp_path: Path) -> None:
    page = Watched(browser).page
    treeblox = tmp_path / "treeblox.html"
    treeblox.write_text(replay_page(random_game_record("treeblox", 2, 4, {})), encoding="utf-8")
    page.goto(treeblox.as_uri() + "#ply=30")
    visible = [page.locator(f"#board .rot-{k}").is_visible() for k in range(4)]
    assert visible == [True, False, False, False]
    page.click("#turn")
    assert [page.locator(f"#board .rot-{k}").is_visible() for k in range(4)] == [False, True, False, False]
    blox = tmp_path / "blox.html"
    record = random_game_record("blox", 2, 4, {"width": "8", "height": "8"})
    blox.write_text(replay_page(record), encoding="utf-8")
    page.goto(blox.as_uri())
    page.keyboard.press("End")
    top = int(page.get_attribute("#level", "max") or "0")
    assert top >= 1
    high = page.locator(f"#board use.l{top}")
    assert high.count() >= 1 and high.first.is_visible()
    page.fill("#level", "0")
    page.dispatch_event("#level", "input")
    assert not high.first.is_visible() and page.locator("#board use.l0").first.is_visible()


def _start(command: list[str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        if found:
            return proc, found.group(1)
    proc.kill()
    raise AssertionError(f"no address printed: {proc.communicate()}")


def test_live_page_of_a_three_bot_league_shows_the_standings_change(browser: Any, tmp_path: Path) -> None:
    write_slow_bot(tmp_path, 0.02)
    (tmp_path / "three.toml").write_text("""
name = "three"
game = "btt"
games_per_pairing = 4
concurrency = 1
[time]
per_move = "2s"
[[bots]]
name = "random"
command = "random"
[[bots]]
name = "greedy"
command = "greedy"
[[bots]]
name = "slow"
command = ["slow/slow.py"]
""")
    proc, url = _start([sys.executable, "-m", "arena", "league", "run", "three.toml", "--serve", "0", "-q"], tmp_path)
    database = tmp_path / "three" / "league.sqlite"
    try:
        watched = Watched(browser)
        page = watched.page
        page.goto(url)
        seen: dict[str, float] = {}
        lags = []
        stored_at: dict[int, float] = {}
        while proc.poll() is None:
            subtitle = page.inner_text("#subtitle")
            now = time.monotonic()
            seen.setdefault(subtitle, now)
            if database.exists():
                with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
                    stored = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                stored_at.setdefault(stored, now)
            shown = re.match(r"(\d+) of 12", subtitle)
            if shown and int(shown.group(1)) in stored_at:
                lags.append(now - stored_at[int(shown.group(1))])
            time.sleep(0.05)
        shown_counts = {int(m.group(1)) for s in seen if (m := re.match(r"(\d+) of 12", s))}
        assert len(shown_counts) >= 3, seen  # the standings moved on while the league ran
        rows = page.locator("#side table").first.locator("tr").count()
        assert rows == 1 + 3  # a header and the three bots
        assert page.locator("#side a").count() >= 1  # finished games link to their replays
        print(f"live page: {len(shown_counts)} updates seen; lag behind the database up to {max(lags):.2f} s")
        assert watched.errors == [] or all("ERR_CONNECTION_REFUSED" in e for e in watched.errors)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode in (0, -9)


def test_a_person_plays_a_whole_btt_game_by_clicking(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "person.pgn"
    proc, url = _start([sys.executable, "-m", "arena", "play", "btt", "human-web", "greedy", "--seed", "2",
                        "--out", str(out), "--no-open"], tmp_path)
    try:
        watched = Watched(browser)
        page = watched.page
        page.goto(url)
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            try:  # the page redraws when the next request arrives: a vanished target is tried again
                page.wait_for_selector("#actions button", timeout=3000)
                spots = page.locator("#board .spot")
                if spots.count():
                    spots.first.click(timeout=2000)  # the place's only action is played, or its actions are listed
                    page.wait_for_timeout(50)
                    listed = page.locator("#actions button:visible")
                    if listed.count():
                        listed.first.click(timeout=2000)
                else:
                    page.locator("#actions button").first.click(timeout=2000)
            except sync_api.TimeoutError:
                continue
            page.wait_for_timeout(100)
        proc.wait(timeout=30)
        page.wait_for_function("document.querySelector('#label').innerText.includes('game over')",
                               timeout=5000)  # the page got the result before the game stopped serving
    finally:
        proc.kill()
        proc.communicate()
    record = read_record_file(out)[0]
    assert record.players == ["human-web", "greedy"] and record.termination == "normal"
    assert verify(record) == [] and len(record.plies) == 32
