"""A recorded game as one self-contained HTML file: every turn's board, drawn by the
same renderer as `arena replay` and exported by rich with inline styles, stepped
through with buttons, a slider or the arrow keys; `#N` in the address opens frame N (from 1),
so a link can point at one moment of the game. No script or style is fetched from
anywhere, so the file can be mailed, attached to an issue or opened offline.
"""

from __future__ import annotations

import html
import io
import json
import re

from rich.console import Console

from arena.records.record import GameRecord
from arena.records.replay import turn_frames
from arena.render import render_state

WIDTH = 160
"""Console width for the frames: wide enough that no board is wrapped."""
UNDERLINE_COLOUR = re.compile(r"; text-decoration-color: #[0-9a-f]{6}")

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5em; background: #fafafa; }}
table.tags td {{ padding: 0 1em 0 0; font-size: 90%; }}
#controls {{ margin: 1em 0; display: flex; gap: .5em; align-items: center; }}
#controls input[type=range] {{ flex: 1; max-width: 40em; }}
#frame {{ background: #fff; color: #000; padding: 1em; border: 1px solid #ccc; overflow-x: auto;
          font-family: ui-monospace, Menlo, Consolas, monospace; line-height: 1.2; }}
#caption {{ font-weight: bold; }}
</style>
</head>
<body>
<h1>{title}</h1>
<table class="tags">{tags}</table>
<div id="controls">
<button id="first" title="Home">&laquo;</button><button id="prev" title="Left arrow">&lsaquo;</button>
<input id="slider" type="range" min="0" max="{last}" value="0">
<button id="next" title="Right arrow">&rsaquo;</button><button id="end" title="End">&raquo;</button>
<span id="counter"></span>
</div>
<div id="caption"></div>
<pre id="frame"></pre>
<script id="frames" type="application/json">{frames}</script>
<script>
const frames = JSON.parse(document.getElementById("frames").textContent);
const slider = document.getElementById("slider");
function show(i) {{
  i = Math.max(0, Math.min(frames.length - 1, i));
  slider.value = i;
  document.getElementById("caption").textContent = frames[i][0];
  document.getElementById("frame").innerHTML = frames[i][1];
  document.getElementById("counter").textContent = (i + 1) + " / " + frames.length;
  history.replaceState(null, "", "#" + (i + 1));
}}
const at = () => Number(slider.value);
slider.oninput = () => show(at());
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(at() - 1);
document.getElementById("next").onclick = () => show(at() + 1);
document.getElementById("end").onclick = () => show(frames.length - 1);
document.addEventListener("keydown", (e) => {{
  const moves = {{ArrowLeft: at() - 1, ArrowRight: at() + 1, Home: 0, End: frames.length - 1}};
  if (e.key in moves) {{ show(moves[e.key]); e.preventDefault(); }}
}});
show((Number(location.hash.slice(1)) || 1) - 1);
</script>
</body>
</html>
"""


def _frame_html(renderable: object) -> str:
    """The rich renderable as HTML spans with inline colours (no page around it)."""
    console = Console(record=True, width=WIDTH, file=io.StringIO(), color_system="truecolor")
    console.print(renderable)
    spans = console.export_html(inline_styles=True, code_format="{code}")
    return UNDERLINE_COLOUR.sub("", spans)  # only matters for underlines; halves the file


def viewer_html(record: GameRecord, level: int | None = None) -> str:
    """The whole page for one game; ReplayError, GameError or ViewError as replay raises."""
    game_id = record.game_id
    frames = [(title, _frame_html(render_state(game_id, state, level)))
              for title, state in turn_frames(record)]
    tags = "".join(f"<tr><td>{html.escape(name)}</td><td>{html.escape(value)}</td></tr>"
                   for name, value in record.tags.items())
    players = " v ".join(record.players)
    title = html.escape(f"{game_id}: {players}")
    data = json.dumps(frames).replace("</", "<\\/")
    return PAGE.format(title=title, tags=tags, last=len(frames) - 1, frames=data)


__all__ = ["viewer_html"]
