"""The live league page's data, without a browser: `arena serve` beside a league run
by another process shows the standings from the database, the games under way from
the league's live.json, and each finished game's replay page."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.helpers.slow_bot import write_slow_bot


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=20) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_serve_beside_a_running_league(tmp_path: Path) -> None:
    write_slow_bot(tmp_path, 0.05)
    (tmp_path / "l.toml").write_text('name = "beside"\ngame = "btt"\ngames_per_pairing = 4\nconcurrency = 1\n'
                                     '[[bots]]\nname = "slow"\ncommand = ["slow/slow.py"]\n'
                                     '[[bots]]\nname = "random"\ncommand = "random"\n')
    league = subprocess.Popen([sys.executable, "-m", "arena", "league", "run", "l.toml", "-q"], cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = None
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "l" / "live.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        server = subprocess.Popen([sys.executable, "-m", "arena", "serve", "l.toml", "--port", "0"], cwd=tmp_path,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert server.stdout is not None
        url = next(m.group(1) for line in server.stdout if (m := re.search(r"(http://127\.0\.0\.1:\d+/)", line)))
        status, page = fetch(url)
        assert status == 200 and 'data-mode="live"' in page
        under_way = 0
        while league.poll() is None:
            status, body = fetch(url + "api/live")
            live = json.loads(body)
            under_way = max(under_way, len(live["games"]))
            for game in live["games"]:
                assert "<svg" in game["svg"] and "slow" in game["title"]
            time.sleep(0.1)
        assert under_way == 1  # concurrency 1: one game at a time, seen while it was played
        live = json.loads(fetch(url + "api/live")[1])
        assert live["subtitle"].startswith("4 of 4 games played")
        assert [row[1] for row in live["standings"]["rows"]] and len(live["finished"]) == 4
        status, replay = fetch(url + live["finished"][0]["href"])
        assert status == 200 and 'data-mode="replay"' in replay
        assert fetch(url + "game/999")[0] == 404
        for tail in ("%C2%B2", "9" * 5000, "abc"):  # '²' and 5000 digits: int() refuses them
            assert fetch(url + "game/" + tail)[0] == 404
    finally:
        league.kill()
        league.wait()
        if server is not None:
            server.terminate()
            server.communicate(timeout=10)
