"""The ladder from end to end, as issue #37 asks: a ladder made with `arena ladder init`,
three entrants, `arena ladder run` as its own process; over HTTP a Python bot, a C bot
given as source (built by the ladder's C build command) and a C bot that does not
compile, which is refused with its build log; games played; the leaderboard, a bot's
page and a replay in a real browser without a console error; kill -9 of the ladder and
the same command resuming with no game lost; one entrant's token refused (403) on
another's logs."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.process.sandbox import probe
from tests.helpers.cli import run_cli

ROOT = Path(__file__).resolve().parents[1]
C_BOT = Path(__file__).parent / "ladder_bots" / "random_bot.c"
PY_BOT = ROOT / "bots" / "random_bot.py"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.timeout(900),
    pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) on this machine"),
    pytest.mark.skipif(probe().bwrap is None, reason="no working sandbox for the builds"),
]


class Ladder:
    """`arena ladder run DIR` in a process of its own, its stdout read in a thread."""

    def __init__(self, folder: Path, *options: str) -> None:
        self.folder = folder
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena", "ladder", "run", str(folder), "--port", "0", *options], cwd=folder,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.url = self._address()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def _address(self) -> str:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            for line in self.lines:
                if "pages and API at " in line:
                    return line.split("pages and API at ", 1)[1].strip().rstrip("/")
            if self.process.poll() is not None:
                time.sleep(0.2)
                raise AssertionError("the ladder stopped:\n" + "\n".join(self.lines))
            time.sleep(0.1)
        raise AssertionError("the ladder never said where it listens:\n" + "\n".join(self.lines))

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        self.process.wait(timeout=60)
        self._reader.join(timeout=10)

    def stop_all(self) -> None:
        """Whatever happened, nothing of it stays running."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=60)
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _games(folder: Path) -> dict[int, str]:
    """Every stored game's record, by number (read-only, beside the running ladder)."""
    db = sqlite3.connect(f"file:{folder / 'ladder.sqlite'}?mode=ro", uri=True, timeout=10)
    try:
        return {int(i): str(r) for i, r in db.execute("SELECT idx, record FROM games")}
    finally:
        db.close()


def _wait_for(what: str, check: Any, seconds: float = 300.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def _processes() -> dict[int, tuple[int, str]]:
    """Every live process: pid -> (parent pid, start time), zombies left out."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                found[int(entry.name)] = (int(fields[1]), fields[19])
    return found


def _descendants(pid: int) -> set[tuple[int, str]]:
    """The processes under `pid` (with their start times, so a reused pid is not them)."""
    table = _processes()
    children: dict[int, list[int]] = {}
    for child, (parent, _) in table.items():
        children.setdefault(parent, []).append(child)
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add((child, table[child][1]))
            todo.append(child)
    return found


def _alive(processes: set[tuple[int, str]]) -> set[tuple[int, str]]:
    table = _processes()
    return {(pid, start) for pid, start in processes if pid in table and table[pid][1] == start}


@pytest.fixture
def ladder_folder(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    folder = tmp_path / "ladder"
    result = run_cli("ladder", "init", str(folder), "--game", "btt")
    assert result.exit_code == 0, result.output
    toml = folder / "ladder.toml"
    text = toml.read_text()
    text = text.replace("# concurrency = 2", "concurrency = 2").replace("min_games = 20", "min_games = 2")
    text = text.replace('per_move = "1s"', 'per_move = "5s"')
    toml.write_text(text)
    tokens = {}
    for name in ("alice", "bob", "carol"):
        added = run_cli("ladder", "entrant", "add", str(folder), name)
        assert added.exit_code == 0, added.output
        tokens[name] = added.output.strip().splitlines()[-1].strip()
        assert tokens[name].split(".")[0].isdigit()
    yield folder, tokens


def _version_of(folder: Path, bot: str) -> int:
    db = sqlite3.connect(f"file:{folder / 'ladder.sqlite'}?mode=ro", uri=True, timeout=10)
    try:
        row = db.execute("SELECT MAX(v.id) FROM versions v JOIN bots b ON b.id = v.bot WHERE b.name = ?",
                         (bot,)).fetchone()
        return int(row[0])
    finally:
        db.close()


def _submit(client: httpx.Client, token: str, name: str, language: str, file_name: str, data: bytes) -> int:
    answer = client.post("/api/bots", headers={"Authorization": f"Bearer {token}"},
                         files={"bot": (file_name, data)}, data={"language": language, "name": name})
    assert answer.status_code == 202, answer.text
    return int(answer.json()["version"])


def _final_state(client: httpx.Client, token: str, version: int) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        status = client.get(f"/api/version/{version}", headers={"Authorization": f"Bearer {token}"}).json()
        return status if status["state"] in ("ready", "failed") else None
    result: dict[str, Any] = _wait_for(f"version {version} to be built and checked", done)
    return result


def _browse(url: str, paths: list[str]) -> dict[str, str]:
    """Each page's text in chromium, asserting no console error and no failed request."""
    sync_api = pytest.importorskip("playwright.sync_api")
    texts = {}
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            for path in paths:
                page = browser.new_page()
                errors: list[str] = []
                page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
                page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                answer = page.goto(url + path)
                assert answer is not None and answer.status == 200, path
                page.wait_for_load_state("load")
                texts[path] = page.inner_text("body")
                assert errors == [], (path, errors)
                page.close()
        finally:
            browser.close()
    return texts


def test_a_ladder_from_submission_to_resume(ladder_folder: tuple[Path, dict[str, str]]) -> None:
    folder, tokens = ladder_folder
    ladder = Ladder(folder)
    try:
        with httpx.Client(base_url=ladder.url, timeout=60) as client:
            c_v = _submit(client, tokens["bob"], "bob", "c", "random_bot.c", C_BOT.read_bytes())
            broken_v = _submit(client, tokens["carol"], "carol", "c", "broken.c",
                               b"int main(void) { return this does not compile; }\n")
            # The Python bot by `arena ladder submit` (a folder, zipped), which waits until it is ready.
            mine = folder.parent / "alice-bot"
            mine.mkdir()
            shutil.copy(PY_BOT, mine / "bot.py")
            submitted = subprocess.run(
                [sys.executable, "-m", "arena", "ladder", "submit", ladder.url, str(mine), "--token", tokens["alice"],
                 "--language", "python", "--name", "alice"], capture_output=True, text=True, timeout=600)
            assert submitted.returncode == 0, submitted.stdout + submitted.stderr
            assert "ready" in submitted.stdout
            python_v = _version_of(folder, "alice")
            assert _final_state(client, tokens["bob"], c_v)["state"] == "ready"
            broken = _final_state(client, tokens["carol"], broken_v)
            assert broken["state"] == "failed"
            assert "error" in broken["log"] and "submit again" in broken["log"], broken["log"]
            # One entrant's token on another's logs: refused.
            refused = client.get(f"/api/version/{python_v}", headers={"Authorization": f"Bearer {tokens['carol']}"})
            assert refused.status_code == 403 or "log" not in refused.json()
            assert client.get(f"/version/{python_v}/log",
                              headers={"Authorization": f"Bearer {tokens['carol']}"}).status_code == 403
            assert client.get(f"/version/{python_v}/log",
                              headers={"Authorization": f"Bearer {tokens['alice']}"}).status_code == 200
            # Games: the two good bots play, the broken one never does.
            _wait_for("six stored games", lambda: len(_games(folder)) >= 6)
            board = client.get("/api/leaderboard", params={"table": "btt-2"}).json()
            shown = str(board)
            assert "alice" in shown and "bob" in shown and "carol" not in shown
        if CHROMIUM is not None:
            texts = _browse(ladder.url, ["/", "/bot/alice", "/game/1"])
            assert "alice" in texts["/"] and "bob" in texts["/"]
            assert "alice" in texts["/bot/alice"]
        # kill -9: nothing finished is lost, nothing is left running, the same command resumes.
        running = _wait_for("bots under way", lambda: _descendants(ladder.process.pid), 60)
        ladder.kill(signal.SIGKILL)
        before = _games(folder)
        _wait_for("the killed ladder's bots to be gone", lambda: not _alive(running), 60)
        kept = _games(folder)
        assert {i: kept[i] for i in before} == before
        again = Ladder(folder, "--quiet")
        try:
            _wait_for("new games after the resume", lambda: len(_games(folder)) > len(kept) + 1)
            resumed = _games(folder)
            assert {i: resumed[i] for i in kept} == kept
            assert set(resumed) == set(range(1, max(resumed) + 1))  # no number skipped, none reused
        finally:
            again.kill(signal.SIGINT)
            again.stop_all()
        assert not [line for line in again.lines if line.startswith("game ")]  # --quiet: no line per game
        assert any("games stored" in line for line in again.lines)  # Ctrl-C: stopped cleanly, with the count
        assert any(line.startswith("game ") for line in ladder.lines)
    finally:
        ladder.stop_all()
