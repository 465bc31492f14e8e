"""The one page template: the replay page, the live league page and a person's seat
are this page with different data (`mode`). Everything is inline (style, script,
pictures): a replay page is one file that works offline, and no page fetches anything
from another host. The script never draws: it joins a frame's lines (arena.web.frames)
and switches views (a quarter turn for Treeblox, the levels shown for Blox).
"""

from __future__ import annotations

import html
import json
from typing import Any

STYLE = """
:root { --ink: #1a1a1a; --muted: #5f5f5f; --line: #d0d0d0; --accent: #0b5cad; }
* { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 0; color: var(--ink); background: #f6f6f4; }
header { padding: .8em 1.2em; background: #fff; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.3em; margin: 0; }
#subtitle { color: var(--muted); margin-top: .2em; }
main { display: flex; flex-wrap: wrap; gap: 1em; padding: 1em 1.2em; align-items: flex-start; }
#viewer { flex: 1 1 560px; max-width: 980px; }
#side { flex: 0 1 380px; font-size: 92%; }
#board { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .5em; }
#board svg { width: 100%; height: auto; max-height: 76vh; display: block; margin: 0 auto; }
#controls { display: flex; gap: .4em; align-items: center; flex-wrap: wrap; margin: .5em 0; }
#controls input[type=range] { flex: 1; min-width: 10em; }
button { font: inherit; padding: .25em .7em; border: 1px solid #9a9a9a; border-radius: 4px; background: #fff;
         cursor: pointer; }
button:hover, button:focus { border-color: var(--accent); outline: 2px solid #bcd6f5; }
#label { font-weight: 600; margin: .3em 0 .5em; min-height: 1.3em; }
#views { display: flex; gap: .5em; align-items: center; flex-wrap: wrap; margin: .4em 0; }
#views[hidden], .hidden { display: none !important; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: .25em .5em; border-bottom: 1px solid #ececec; }
th { background: #f0f0ee; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
h2 { font-size: 1.05em; margin: 1em 0 .4em; }
.note { color: var(--muted); }
.fault { color: #a40000; }
#board .rot { display: none; }
#board[data-rot="0"] .rot-0, #board[data-rot="1"] .rot-1, #board[data-rot="2"] .rot-2,
#board[data-rot="3"] .rot-3 { display: inline; }
#board .spot { cursor: pointer; }
#board .spot:hover { stroke: #0b5cad; stroke-width: 3; }
#actions { margin-top: .6em; display: flex; flex-wrap: wrap; gap: .3em; }
#actions button.chosen { background: #dbe9fb; }
#clock { font-variant-numeric: tabular-nums; font-weight: 600; }
.game-card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .4em; margin-bottom: .8em; }
.game-card svg { width: 100%; height: auto; }
#order { margin: 0 0 .4em; display: flex; gap: .4em; align-items: center; }
#order button.chosen { background: #dbe9fb; }
body.idle #viewer { display: none; }
body.idle #side { flex: 1 1 100%; max-width: none; font-size: 100%; }
@media (min-width: 900px) {
  body.idle #side { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 0 1.5em;
                    align-items: start; }
  body.idle #idle-note, body.idle #standings { grid-column: 1 / -1; }
}
"""

SCRIPT = r"""
const data = JSON.parse(document.getElementById("data").textContent);
const $ = (id) => document.getElementById(id);
const board = $("board"), slider = $("slider");
let film = null, current = 0;

function esc(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
}

function load(newFilm, keep) {
  film = newFilm;
  $("defs").innerHTML = "<defs>" + film.defs + "</defs>";
  slider.max = film.frames.length - 1;
  $("views").hidden = !(film.turnable || film.levels > 0);
  $("turn").hidden = !film.turnable;
  $("levels").hidden = !(film.levels > 0);
  $("level").max = film.levels;
  if (!keep) $("level").value = film.levels;
  showLevel();
}

function frameSvg(frame) {
  return frame[5].map((k) => film.chunks[k]).join("\n");
}

function show(i, quiet) {
  if (!film) return;
  i = Math.max(0, Math.min(film.frames.length - 1, i));
  current = i;
  const frame = film.frames[i];
  board.innerHTML = frameSvg(frame);
  slider.value = i;
  $("label").textContent = frame[4];
  $("counter").textContent = "ply " + frame[0] + " / " + (film.frames.length - 1);
  if (!quiet && data.mode === "replay") history.replaceState(null, "", "#ply=" + frame[0]);
}

function showLevel() {
  const top = Number($("level").value);
  let rules = "";
  for (let z = top + 1; z <= film.levels; z++) rules += "#board .l" + z + "{display:none}";
  $("levelcss").textContent = rules;
  $("levelvalue").textContent = top + " of " + film.levels;
}

function plyFromHash() {
  const m = /ply=(\d+)/.exec(location.hash);
  return m ? Number(m[1]) : null;
}

const at = () => Number(slider.value);
slider.oninput = () => show(at());
$("first").onclick = () => show(0);
$("prev").onclick = () => show(at() - 1);
$("next").onclick = () => show(at() + 1);
$("last").onclick = () => show(film.frames.length - 1);
$("turn").onclick = () => { board.dataset.rot = (Number(board.dataset.rot) + 1) % 4; };
$("level").oninput = showLevel;
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" && e.target.type === "text") return;
  if (!film) return;
  const moves = {ArrowLeft: at() - 1, ArrowRight: at() + 1, Home: 0, End: film.frames.length - 1};
  if (e.key in moves) { show(moves[e.key]); e.preventDefault(); }
  else if (e.key === "t" && film.turnable) $("turn").click();
});
window.addEventListener("hashchange", () => { const p = plyFromHash(); if (p !== null) show(p, true); });

function table(headers, rows, numeric) {
  let out = "<table><tr>" + headers.map((h, k) => "<th" + (numeric[k] ? " class=num" : "") + ">" + esc(h) +
    "</th>").join("") + "</tr>";
  for (const row of rows) out += "<tr>" + row.map((c, k) => "<td" + (numeric[k] ? " class=num" : "") + ">" +
    c + "</td>").join("") + "</tr>";
  return out + "</table>";
}

// ---- replay ----------------------------------------------------------------------------
if (data.mode === "replay") {
  load(data.film);
  if (data.level !== null && data.level !== undefined) { $("level").value = data.level; showLevel(); }
  const rows = Object.entries(data.tags).map(([k, v]) => [esc(k), esc(v)]);
  $("side").innerHTML = "<h2>Record</h2>" + table(["tag", "value"], rows, [false, false]);
  const p = plyFromHash();
  show(p === null ? 0 : p, true);
}

// ---- live league -----------------------------------------------------------------------
if (data.mode === "live") {
  $("controls").classList.add("hidden");
  let version = -1, defsGame = null;
  async function poll() {
    try {
      const response = await fetch("api/live?since=" + version, {cache: "no-store"});
      if (response.status === 200) renderLive(await response.json());
    } catch (err) { $("label").textContent = "the league's server does not answer (finished or stopped?)"; }
    setTimeout(poll, 400);
  }
  let shown = null, order = "round", lastBusy = performance.now();
  function renderLive(live) {
    shown = live;
    version = live.version;
    $("title").textContent = live.title;
    $("subtitle").textContent = live.subtitle;
    if (live.defs && defsGame !== live.defs_key) {
      $("defs").innerHTML = "<defs>" + live.defs + "</defs>";
      defsGame = live.defs_key;
    }
    // No board under way (the league finished, or none for a few seconds: stopped, or
    // not begun): the tables take the whole width instead of leaving the board's half
    // empty. The gap between two games of a running league does not switch the layout.
    if (live.games.length) lastBusy = performance.now();
    const idle = !live.games.length && ((live.total && live.done >= live.total) ||
      performance.now() - lastBusy > 3000);
    document.body.classList.toggle("idle", idle);
    $("label").textContent = live.games.length ? "games under way" : "no game under way";
    board.innerHTML = live.games.map((g) => "<div class=game-card><div><b>" + esc(g.title) + "</b> · " +
      esc(g.label) + "</div>" + g.svg + "</div>").join("");
    const state = !idle ? "" : "<p class=note id=idle-note>" + (live.total && live.done >= live.total ?
      "the league is finished: every game is played" : "no game under way") + "</p>";
    let side = state + "<section id=standings><h2>Standings</h2>" + table(live.standings.headers,
      live.standings.rows.map((r) => r.map(esc)), live.standings.numeric) + "</section>";
    side += "<section id=finished><h2>Finished games</h2>" + finishedList(live) + "</section>";
    side += "<section id=faults><h2>Faults</h2>" + (live.faults.length ? "<ul>" + live.faults.map((f) =>
      "<li class=fault>" + esc(f) + "</li>").join("") + "</ul>" : "<p class=note>none</p>") + "</section>";
    $("side").innerHTML = side;
    for (const b of document.querySelectorAll("#order button"))
      b.onclick = () => { order = b.dataset.order; renderLive(shown); };
    document.body.dataset.version = String(live.version);
  }
  function finishedList(live) {
    if (!live.finished.length) return "<p class=note>none yet</p>";
    // Round order (as the schedule reads) by default; finishing order, newest first, on request.
    const games = order === "round" ? live.finished : live.finished.slice().sort((a, b) => b.finished - a.finished);
    const buttons = [["round", "by round"], ["finished", "newest first"]].map(([o, text]) =>
      "<button data-order=" + o + (o === order ? " class=chosen aria-pressed=true" : " aria-pressed=false") +
      ">" + text + "</button>").join(" ");
    const count = live.finished_count > live.finished.length ? "<p class=note>the newest " + live.finished.length +
      " of " + live.finished_count + " games; every game is at game/&lt;number&gt;</p>" : "";
    return "<div id=order>order: " + buttons + "</div>" + count + table(["round", "result", ""],
      games.map((f) => [esc(f.round), esc(f.result), "<a href=\"" + esc(f.href) + "\">replay</a>"]),
      [false, false, false]);
  }
  poll();
}

// ---- a person's seat -------------------------------------------------------------------
if (data.mode === "human") {
  $("controls").classList.add("hidden");
  let version = -1, request = null, deadline = null, stopped = false;
  async function poll() {
    try {
      const response = await fetch("api/state?since=" + version, {cache: "no-store"});
      if (response.status === 200) renderSeat(await response.json());
      setTimeout(poll, 150);
    } catch (err) {
      stopped = true;
      $("clock").textContent = "the arena has stopped: you may close this page";
    }
  }
  function renderSeat(seat) {
    version = seat.version;
    $("title").textContent = seat.title;
    $("subtitle").textContent = seat.subtitle;
    if (seat.film) { load(seat.film, true); show(seat.film.frames.length - 1, true); }
    request = seat.request;
    deadline = seat.deadline_ms === null ? null : performance.now() + seat.deadline_ms;
    $("label").textContent = seat.message;
    const actions = $("actions");
    actions.innerHTML = "";
    if (request) {
      for (const action of request.legal) {
        const b = document.createElement("button");
        b.textContent = action;
        b.dataset.action = action;
        b.onclick = () => send(action);
        actions.appendChild(b);
      }
    }
    $("side").innerHTML = seat.side || "";
  }
  board.addEventListener("click", (e) => {
    const target = e.target.closest("[data-spot]");
    if (!target || !request) return;
    const here = request.legal.filter((a) => request.spots[a] === target.dataset.spot);
    if (here.length === 1) { send(here[0]); return; }
    for (const b of $("actions").children) b.classList.toggle("hidden", !here.includes(b.dataset.action));
    $("label").textContent = "choose one of the " + here.length + " actions at " + target.dataset.spot +
      " (or click elsewhere on the board to see them all)";
  });
  board.addEventListener("click", (e) => {
    if (!e.target.closest("[data-spot]"))
      for (const b of $("actions").children) b.classList.remove("hidden");
  }, true);
  async function send(action) {
    if (!request) return;
    const sent = request;
    request = null;
    $("label").textContent = "sent " + action;
    await fetch("api/action", {method: "POST", headers: {"Content-Type": "application/json"},
                               body: JSON.stringify({action: action, request: sent.id})});
  }
  setInterval(() => {
    if (stopped) return;
    $("clock").textContent = deadline === null || !request ? "" :
      "time left " + Math.max(0, (deadline - performance.now()) / 1000).toFixed(1) + " s";
  }, 100);
  poll();
}
"""

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
<style id="levelcss"></style>
</head>
<body data-mode="{mode}">
<header><h1 id="title">{title}</h1><div id="subtitle">{subtitle}</div></header>
<main>
<section id="viewer">
<svg id="defs" width="0" height="0" style="position:absolute" aria-hidden="true"></svg>
<div id="controls">
<button id="first" title="first ply (Home)">&laquo;</button>
<button id="prev" title="previous ply (left arrow)">&lsaquo;</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="ply">
<button id="next" title="next ply (right arrow)">&rsaquo;</button>
<button id="last" title="last ply (End)">&raquo;</button>
<span id="counter"></span>
</div>
<div id="views" hidden>
<button id="turn" title="turn the board a quarter (t)" hidden>turn the board</button>
<span id="levels" hidden>levels shown: 0 to <input id="level" type="range" min="0" max="0" value="0"
aria-label="highest level shown"> <span id="levelvalue"></span></span>
</div>
<div id="label" aria-live="polite"></div>
<div id="board" data-rot="0"></div>
<div id="clock"></div>
<div id="actions"></div>
</section>
<aside id="side"></aside>
</main>
<script id="data" type="application/json">{data}</script>
<script>{script}</script>
</body>
</html>
"""


def page(mode: str, title: str, subtitle: str, data: dict[str, Any]) -> str:
    """The page for `mode` ("replay", "live" or "human") with its data."""
    payload = json.dumps({"mode": mode, **data}, separators=(",", ":")).replace("</", "<\\/")
    return TEMPLATE.format(title=html.escape(title), subtitle=html.escape(subtitle), mode=mode, style=STYLE,
                           script=SCRIPT, data=payload)
