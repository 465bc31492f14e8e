"""A ladder as one running piece: its store, the door for submissions (builds and
checks one at a time), the runner's slots playing units without end, the pages and
the API, and the log pruning: all tasks of one Trio nursery in one process, so Ctrl-C
or a kill stops them together and the same command resumes. Games run on this machine
or on a Dask cluster; the web server is one more task and never holds the clock loop
(every database write and every build runs off it)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from arena.errors import ArenaError
from arena.ladder.config import Ladder
from arena.ladder.logs import prune_logs
from arena.ladder.runner import LadderRunner
from arena.ladder.store import LadderStore
from arena.ladder.submissions import Submissions
from arena.ladder.tokens import TokenChecker
from arena.league.executor import Executor, LocalExecutor
from arena.process.folder_checks import shown_anyway
from arena.process.sandbox import probe

if TYPE_CHECKING:
    from arena.cluster.executor import DaskExecutor

Say = Callable[[str], None]

PRUNE_EVERY_S = 60.0


class LadderService:
    """An opened ladder (a context manager: leaving it closes its store and cluster)."""

    def __init__(self, ladder: Ladder, tell: Say = lambda line: None) -> None:
        require_sandbox()
        if shown_anyway(ladder.folder.resolve()):
            raise NoSandboxError(
                f"{ladder.folder} lies in a folder every sandbox shows read-only (the system's or the arena's own), "
                "so every bot and build could read the ladder's secret and database; move the ladder elsewhere "
                "(a home or /srv folder)")
        self.ladder = ladder
        self.tell = tell
        self.store = LadderStore.open(ladder.database, ladder.name, create=False)
        self.cluster: DaskExecutor | None = None
        self.runner = LadderRunner(ladder, self.store, self._executor, tell)
        self.submissions = Submissions(ladder, self.store, on_ready=self.runner.wake)
        self.tokens = TokenChecker(self.store)

    def _executor(self) -> Executor:
        """A slot's executor: one game at a time here, or the shared cluster."""
        return self.cluster if self.cluster is not None else LocalExecutor(1)

    def connect(self, say: Say) -> None:
        """Reach the ladder's Dask cluster, when it has one (ArenaError if it cannot)."""
        if self.ladder.cluster is None:
            return
        from arena.cluster.executor import DaskExecutor

        executor = DaskExecutor(self.ladder.cluster, (self.ladder.database.parent / "logs",))
        say(f"connecting to the Dask cluster {self.ladder.cluster} ...")
        executor.connect()
        self.cluster = executor
        say(f"the cluster has {executor.threads()} worker thread(s)")

    def app(self) -> object:
        from arena.ladder.web.app import ladder_app

        return ladder_app(self.ladder, self.ladder.database, self.submissions, self.runner.under_way, self.tokens,
                          self.store.secret)

    async def run(self, host: str, port: int, announce: Say,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Serve the pages and play until cancelled."""
        from arena.web.server import address, run_server

        async with trio.open_nursery() as nursery:
            bound = await nursery.start(run_server, self.app(), host, port)
            announce(address(bound))
            nursery.start_soon(self.submissions.work)
            nursery.start_soon(self.runner.run)
            nursery.start_soon(self._prune)
            task_status.started()

    async def _prune(self) -> None:
        ladder = self.ladder
        while True:
            under_way = set(self.runner.units_under_way)
            removed = await trio.to_thread.run_sync(prune_logs, ladder.logs, ladder.keep_game_logs, under_way)
            if removed:
                self.tell(f"{removed} old log file(s) removed (logs.keep_games = {ladder.keep_game_logs})")
            await trio.sleep(PRUNE_EVERY_S)

    def close(self) -> None:
        self.store.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()

    def __enter__(self) -> LadderService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class NoSandboxError(ArenaError):
    """The ladder runs strangers' code: it never runs without its sandbox."""


def require_sandbox() -> None:
    """A ladder's bots and builds are untrusted: without bubblewrap here, it does not run."""
    isolation = probe()
    if not isolation.sandbox or isolation.bwrap is None:
        raise NoSandboxError(f"a ladder runs entrants' code only in its sandbox, and this machine has none "
                             f"({isolation.why}); see `arena doctor` for the fix")


def init_ladder(folder: Path, name: str, game_ids: list[str]) -> Ladder:
    """Write DIR/ladder.toml and an empty store; refuses a folder that holds a ladder."""
    from arena.ladder.config import LADDER_FILE, LadderFileError, ladder_file_text, load_ladder

    path = folder / LADDER_FILE
    if path.exists() or (folder / "ladder.sqlite").exists():
        raise LadderFileError(f"{folder} already holds a ladder; run it with `arena ladder run {folder}`, or choose "
                              "another folder")
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(ladder_file_text(name, game_ids), encoding="utf-8")
    ladder = load_ladder(folder)
    LadderStore.open(ladder.database, ladder.name).close()
    return ladder
