"""Write a picture of a few positions of every game to docs/images/ (PNG screenshots of
the SVG boards, taken in chromium by Playwright), for the games' docs.

    python scripts/draw_examples.py

Positions come from seeded random play, so the pictures are the same on every run of
the same code. Needs chromium on PATH and the test extras (playwright)."""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena import games  # noqa: E402
from arena.games import CHANCE  # noqa: E402
from arena.render.svg import View, svg_defs, svg_state  # noqa: E402

EXAMPLES = [
    ("btt", 2, {}, 20, 3), ("btt", 3, {}, 40, 4), ("btt", 6, {}, 70, 5),
    ("treeblox", 2, {}, 34, 3), ("blox", 2, {"width": "12", "height": "12"}, 60, 5),
    ("roots", 2, {}, 70, 4), ("the-tree", 3, {}, 22, 4),
]
"""(game, seats, options, plies played, seed) of each picture."""
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]
OUT = Path(__file__).resolve().parent.parent / "docs" / "images"


def standalone(game_id: str, seats: int, options: dict[str, str], plies: int, seed: int) -> str:
    """An HTML page holding the SVG of the position after `plies` seeded random plies."""
    game = games.get(game_id)
    state = game.new_state(seats, game.resolve_options(options))
    rng = random.Random(seed)
    last, actor = None, None
    for _ in range(plies):
        if state.is_terminal():
            break
        actor = state.current()
        last = state.sample_chance(rng) if actor == CHANCE else rng.choice(state.legal_actions())
        state.apply(last)
    names = tuple(["dark-bot", "light-bot"] if game_id == "treeblox" else [f"bot-{k}" for k in range(seats)])
    view = View(names, last=last, last_actor=actor, status=f"after {plies} plies; last: {last}")
    svg = svg_state(game_id, state, view)
    css = "<style>.rot{display:none}.rot-0{display:inline}</style>"
    return (f"<html><body style='margin:0;background:#fff'>{css}<svg width='0' height='0' style='position:absolute'>"
            f"<defs>{svg_defs(game_id, state, view)}</defs></svg><div style='width:760px'>"
            + svg.replace("<svg ", "<svg style='width:100%;height:auto;display:block' ", 1) + "</div></body></html>")


def main() -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("chromium is not installed (apt-get install chromium)")
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=ARGS)
        page = browser.new_page(viewport={"width": 760, "height": 600})
        for game_id, seats, options, plies, seed in EXAMPLES:
            page.set_content(standalone(game_id, seats, options, plies, seed))
            target = OUT / f"{game_id}-{seats}.png"
            page.locator("div").screenshot(path=str(target))
            print(f"wrote {target.relative_to(OUT.parent.parent)}")
        browser.close()


if __name__ == "__main__":
    main()
