"""The live league page: standings, the games under way with their boards, the faults
and every finished game a click away (listed by round, as the schedule reads), read-only.
Served by the league's own process (`arena league run FILE --serve PORT`, reading the
runner's games in memory) or beside it (`arena serve FILE`, reading `live.json`, which
the runner keeps up to date). The results always come from the league's database,
opened read-only."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from typing import Any

import trio

from arena.league.config import League
from arena.league.standings import anchor_line, compute_standings, leaderboard_rows, restrict
from arena.league.store import StoredFault, StoredGame
from arena.league.under_way import GamesUnderWay, GameUnderWay, read_live_file
from arena.records.reader import read_text
from arena.render.svg import View, svg_defs, svg_state
from arena.web.frames import ply_label
from arena.web.page import page
from arena.web.replay import replay_page
from arena.web.server import App, Reply, Request

POLL_S = 10.0
"""How long the page's request for news may wait for a change."""
LISTED = 60
"""Faults listed on the page (the newest)."""
FINISHED_LISTED = 240
"""Finished games listed on the page: the newest, shown in round order (a finished
league of up to this many games lists them all); every game stays at game/<number>."""


def round_key(label: str, index: int) -> tuple[tuple[int, ...], str, int]:
    """Where a game stands in round order: its round label's numbers ("3.10" is
    (3, 10), after "3.9"), then the label, then its number in the schedule."""
    return tuple(int(n) for n in re.findall(r"\d+", label)), label, index


class LeagueResults:
    """The league's stored results, read from its database with a read-only connection
    (never the runner's), so a page can never change or lock what the league writes."""

    def __init__(self, league: League) -> None:
        self.league = league
        self._cache_key: tuple[int, int, int] | None = None
        self._cache: dict[str, Any] = {}

    def _connect(self) -> sqlite3.Connection | None:
        if not self.league.database.exists():
            return None
        return sqlite3.connect(f"file:{self.league.database}?mode=ro", uri=True, timeout=2)

    def key(self) -> tuple[int, int, int]:
        """(games stored, last rowid, void attempts): changes whenever a game is stored
        or voided."""
        db = self._connect()
        if db is None:
            return 0, 0, 0
        try:
            count, last = db.execute("SELECT COUNT(*), COALESCE(MAX(rowid), 0) FROM games").fetchone()
            (voided,) = db.execute("SELECT COALESCE(SUM(attempts), 0) FROM void").fetchone()
            return int(count), int(last), int(voided)
        except sqlite3.Error:
            return 0, 0, 0
        finally:
            db.close()

    def summary(self) -> dict[str, Any]:
        """Standings, the newest finished games and faults (recomputed when a game is stored)."""
        key = self.key()
        if key == self._cache_key:
            return self._cache
        league = self.league
        names = self._roster()
        wanted = [b.name for b in league.bots]
        shown = [names.index(name) for name in wanted if name in names]
        rows = [(g, r, f) for g, r, f in self._rows() if all(names[b] in wanted for b in g.seats)]
        table_names, games, voids = restrict(names, [g for g, _, _ in rows], self._voids(), shown)
        standings = compute_standings(table_names, league.seats, games, league.game.score_name, voids,
                                      anchor=league.anchor)
        headers, lines = leaderboard_rows(standings)
        finished = []
        faults = []
        newest_first = sorted(rows, key=lambda r: (r[2], r[0].index), reverse=True)
        for order, (game, round_label, _) in enumerate(newest_first):
            seats = [names[b] for b in game.seats]
            result = ", ".join(f"{n} #{r}" for n, r in zip(seats, game.ranks, strict=True))
            finished.append((round_key(round_label, game.index),
                             {"round": round_label, "result": f"{result} [{game.termination}]",
                              "href": f"game/{game.index}", "finished": len(newest_first) - order}))
            for fault in game.faults:
                faults.append(f"round {round_label}: {names[fault.bot]} ({fault.reason}) {fault.detail}")
        listed = sorted(finished[:FINISHED_LISTED], key=lambda f: f[0])
        self._cache = {
            "standings": {"headers": headers, "rows": lines, "numeric": [h not in ("bot", "faults") for h in headers]},
            "finished": [entry for _, entry in listed],
            "finished_count": len(finished), "faults": faults[:LISTED], "done": len(games),
            "total": self._scheduled(names, wanted), "anchor": anchor_line(standings),
        }
        self._cache_key = key
        return self._cache

    def _rows(self) -> list[tuple[StoredGame, str, str]]:
        """(game, round label, when it finished) of every stored game."""
        db = self._connect()
        if db is None:
            return []
        try:
            rows = db.execute(
                "SELECT g.idx, s.tbl, s.seats, s.seed, g.ranks, g.scores, g.faults, g.termination, g.plies, "
                "s.round, g.finished FROM games g JOIN schedule s ON s.idx = g.idx ORDER BY g.idx").fetchall()
        except sqlite3.Error:
            return []
        finally:
            db.close()
        out = []
        for idx, table, seats, seed, ranks, scores, faults, termination, plies, round_label, finished in rows:
            game = StoredGame(idx, table, tuple(json.loads(seats)), seed, tuple(json.loads(ranks)),
                              None if scores is None else tuple(float(s) for s in json.loads(scores)),
                              tuple(StoredFault(**f) for f in json.loads(faults)), termination, plies)
            out.append((game, str(round_label), str(finished)))
        return out

    def _voids(self) -> list[tuple[tuple[int, ...], int]]:
        """(bots seated, attempts voided) of every game the arena's errors voided."""
        db = self._connect()
        if db is None:
            return []
        try:
            rows = db.execute("SELECT s.seats, v.attempts FROM void v JOIN schedule s ON s.idx = v.idx").fetchall()
        except sqlite3.Error:
            return []
        finally:
            db.close()
        return [(tuple(json.loads(seats)), int(attempts)) for seats, attempts in rows]

    def _roster(self) -> list[str]:
        """Every bot of the database by number (the league file's bots before a
        database has its roster)."""
        db = self._connect()
        names: list[str] = []
        if db is not None:
            try:
                names = [str(n) for (n,) in db.execute("SELECT name FROM bots ORDER BY id")]
            except sqlite3.Error:
                names = []
            finally:
                db.close()
        return names or [b.name for b in self.league.bots]

    def _scheduled(self, names: list[str], wanted: list[str]) -> int:
        """The league file's games: those of its bots' tables within games_per_pairing."""
        db = self._connect()
        if db is None:
            return 0
        try:
            rows = db.execute("SELECT seats, place FROM schedule").fetchall()
        except sqlite3.Error:
            return 0
        finally:
            db.close()
        return sum(1 for seats, place in rows if int(place) < self.league.games_per_pairing
                   and all(names[b] in wanted for b in json.loads(seats)))

    def record_text(self, index: int) -> str | None:
        db = self._connect()
        if db is None:
            return None
        try:
            row = db.execute("SELECT record FROM games WHERE idx = ?", (index,)).fetchone()
        except sqlite3.Error:
            return None
        finally:
            db.close()
        return None if row is None else str(row[0])


class LivePage:
    """The routes of the live page for one league; `under_way` gives the games in
    flight (the runner's, or those of its live.json)."""

    def __init__(self, league: League, under_way: Callable[[], list[GameUnderWay]],
                 changed: Callable[[], trio.Event] | None = None) -> None:
        self.league = league
        self.results = LeagueResults(league)
        self.under_way = under_way
        self.changed = changed
        self._drawn: dict[tuple[int, int], str] = {}
        self.app = App({"/": self._page, "/api/live": self._live, "/game/": self._game})

    async def _page(self, request: Request) -> Reply:
        title = f"{self.league.name}: {self.league.game.name}"
        return Reply(page("live", title, "live league page", {}).encode())

    def version(self) -> str:
        games = self.under_way()
        return f"{self.results.key()}:{[(g.index, len(g.actions)) for g in games]}"

    async def _live(self, request: Request) -> Reply:
        since = request.query.get("since", "")
        deadline = trio.current_time() + POLL_S
        while self.version() == since and trio.current_time() < deadline:
            if self.changed is not None:
                with trio.move_on_after(1.0):  # the database changes without an event
                    await self.changed().wait()
            else:
                await trio.sleep(0.2)
        return Reply.json(self.snapshot())

    def snapshot(self) -> dict[str, Any]:
        summary = self.results.summary()
        games = [self._board(g) for g in self.under_way()]
        defs, defs_key = "", ""
        under_way = self.under_way()
        if under_way:
            state = self._state(under_way[0])[0]
            view = View(tuple(under_way[0].names))
            defs_key = f"{self.league.game.id}:{sorted(self.league.options.items())}:{under_way[0].seats}"
            defs = svg_defs(self.league.game.id, state, view)
        return {
            "version": self.version(), "title": f"{self.league.name}: {self.league.game.name}",
            "subtitle": f"{summary['done']} of {summary['total']} games played · {len(games)} under way"
                        + (f" · {summary['anchor']}" if summary["anchor"] else ""),
            "games": games, "defs": defs, "defs_key": defs_key, **summary,
        }

    def _state(self, game: GameUnderWay) -> tuple[Any, str | None, int | None]:
        state = self.league.game.new_state(game.seats, game.options)
        last, actor = None, None
        for action in game.actions:
            actor = state.current()
            state.apply(action)
            last = action
        return state, last, actor

    def _board(self, game: GameUnderWay) -> dict[str, str]:
        key = (game.index, len(game.actions))
        svg = self._drawn.get(key)
        state, last, actor = self._state(game)
        if svg is None:
            to_move = state.current()
            status = f"{game.names[to_move]} to play" if 0 <= to_move < len(game.names) else ""
            svg = svg_state(self.league.game.id, state, View(tuple(game.names), last, actor, status=status))
            if len(self._drawn) > 256:
                self._drawn.clear()
            self._drawn[key] = svg
        label = ply_label(len(game.actions), len(game.actions), 0, actor, last, game.names)
        label = f"ply {len(game.actions)} · " + label.split(" · ")[-1] if last is not None else "the start"
        return {"title": f"round {game.round}: {' v '.join(game.names)}", "label": label, "svg": svg}

    async def _game(self, request: Request) -> Reply:
        tail = request.path.rsplit("/", 1)[-1]
        if not (tail.isascii() and tail.isdigit() and len(tail) <= 12):  # int() refuses '²' and 5000 digits
            return Reply.text("no such game: the address is game/<number>", 404)
        text = self.results.record_text(int(tail))
        if text is None:
            return Reply.text(f"game {tail} is not finished (or not in this league)", 404)
        record = read_text(text)[0]
        return Reply(replay_page(record).encode())


def in_process_page(league: League, under_way: GamesUnderWay) -> LivePage:
    """The page of the league this process runs."""
    return LivePage(league, lambda: list(under_way.games.values()), lambda: under_way.changed)


def beside_page(league: League) -> LivePage:
    """The page of a league another process runs (or ran)."""
    return LivePage(league, lambda: read_live_file(league.output))


__all__ = ["LivePage", "beside_page", "in_process_page"]
