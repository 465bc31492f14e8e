"""A submission from upload to a version that may play: checked at the door (name,
language, size, the entrant's hourly allowance), unpacked with the upload's refusals
(arena.ladder.upload), built by its language's command in a sandbox without network
(arena.process.build), then put through `arena check` at every table's game. Only a
version that passes all of it plays; one that fails keeps its log, which says why and
what to fix. Builds and checks run one at a time, beside the games."""

from __future__ import annotations

import contextlib
import math
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import trio

from arena.errors import ArenaError
from arena.games import Game
from arena.ladder.config import Ladder, Language
from arena.ladder.store import Bot, Entrant, LadderStore, Version
from arena.ladder.upload import UploadError, UploadLimits, unpack_upload
from arena.process.botnames import BotNameError, resolve_bot
from arena.process.build import BuildError, run_build
from arena.process.spec import BotSpec
from arena.referee.player import Timing
from arena.session.check import Checker, Report
from arena.timecontrol import TimeControl

BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
"""A bot's (and an entrant's) name: it labels records, pages and log files."""


class SubmissionError(ArenaError):
    """A submission refused at the door; `status` is the HTTP status that says why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def version_folder(ladder: Ladder, bot: int, number: int) -> Path:
    return ladder.bots_folder / str(bot) / f"v{number}"


def bot_spec(ladder: Ladder, language: Language, folder: Path, label: str, game: Game) -> BotSpec:
    """How a version is started: its language's run command in its folder."""
    spec = resolve_bot(language.run, game.id, folder=folder)
    return replace(spec, name=label, named=True)


def report_text(report: Report) -> str:
    lines = []
    for check in report.checks.values():
        mark = "skipped" if check.skipped else "passed" if check.passed else "FAILED"
        detail = f": {check.detail}" if check.detail and (not check.passed or check.skipped) else ""
        lines.append(f"{mark:8} {check.name}{detail}")
        if not check.passed and check.line:
            lines.append(f"         the line: {check.line[:300]}")
    return "\n".join([*lines, *report.notes])


@dataclass
class Submissions:
    """The ladder's door for new versions (the pages and the API call `submit`)."""

    ladder: Ladder
    store: LadderStore
    on_ready: Callable[[], None] = lambda: None
    """Told when a version became ready (the matchmaker wakes up)."""

    def __post_init__(self) -> None:
        self._queue_send, self._queue = trio.open_memory_channel[int](math.inf)  # bounded by per_hour
        self._entrants: dict[int, trio.Lock] = {}
        """One submission of an entrant at a time: the hourly allowance is checked and the
        version stored together, so parallel uploads cannot all pass the check."""

    async def submit(self, entrant: Entrant, bot_name: str, language: str, filename: str, data: bytes) -> Version:
        ladder = self.ladder
        if not BOT_NAME.fullmatch(bot_name):
            raise SubmissionError("the bot's name must be 1 to 32 letters, digits, '.', '_' or '-', starting with a "
                                  "letter or digit")
        if language not in ladder.languages:
            raise SubmissionError(f"unknown language {language[:40]!r}; this ladder takes "
                                  f"{', '.join(sorted(ladder.languages))}")
        if len(data) > ladder.max_upload_bytes:
            raise SubmissionError(f"the upload is {len(data)} bytes, more than this ladder's "
                                  f"{ladder.max_upload_bytes}; leave out build products and data you do not need",
                                  413)
        async with self._entrants.setdefault(entrant.id, trio.Lock()):
            version = await trio.to_thread.run_sync(self._admit, entrant, bot_name, language, filename, data)
        self._queue_send.send_nowait(version.id)
        return version

    def _admit(self, entrant: Entrant, bot_name: str, language: str, filename: str, data: bytes) -> Version:
        """In a worker thread (it reads the store, unpacks, renames and deletes): the
        owner's and the hourly checks, then the upload unpacked into a new version's
        folder, or SubmissionError with nothing left behind."""
        ladder = self.ladder
        owner = self.store.bot(bot_name)
        if owner is not None and owner.entrant != entrant.id:
            raise SubmissionError(f"the bot name {bot_name!r} belongs to another entrant; choose another name", 403)
        if owner is not None and owner.status == "disqualified":
            raise SubmissionError(f"{bot_name} is disqualified: {owner.reason}; ask the organiser", 403)
        recent = self.store.submissions_since(entrant.id)
        if recent >= ladder.submissions_per_hour:
            raise SubmissionError(f"{recent} versions in the last hour is this ladder's limit; submit again later",
                                  429)
        limits = UploadLimits(max_bytes=ladder.max_upload_bytes, max_entries=ladder.max_entries,
                              max_unpacked_bytes=ladder.max_unpacked_bytes)
        ladder.bots_folder.mkdir(parents=True, exist_ok=True)
        incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=ladder.bots_folder))
        try:
            try:
                unpack_upload(filename or "bot", data, incoming / "src", limits)
            except UploadError as exc:
                raise SubmissionError(str(exc)) from None
            version = self.store.add_version(entrant.id, bot_name, language)
            folder = version_folder(ladder, version.bot, version.number)
            folder.parent.mkdir(parents=True, exist_ok=True)
            if folder.exists():  # a version number an interrupted submission left behind
                shutil.rmtree(folder, ignore_errors=True)
            (incoming / "src").rename(folder)
        finally:
            shutil.rmtree(incoming, ignore_errors=True)
        return version

    async def work(self) -> None:
        """Build and check the versions submitted (those an interruption cut short
        first), one at a time, until cancelled."""
        for unfinished in await trio.to_thread.run_sync(self.store.unfinished_versions):
            await self.prepare(unfinished.id)
        await trio.to_thread.run_sync(self.prune)
        async for version_id in self._queue:
            await self.prepare(version_id)

    async def prepare(self, version_id: int) -> None:
        """Build and check one version, then apply the version policy. Whatever one
        version's files make go wrong (a tree too deep to walk, a full disk), it fails
        that version alone, never the door: the versions after it are still built."""
        try:
            await self._build_and_check(version_id)
        except Exception as exc:  # noqa: BLE001 - one hostile version must not stop every later build
            await trio.to_thread.run_sync(
                self.store.set_version_state, version_id, "failed",
                f"the ladder could not build or check it ({type(exc).__name__}: {str(exc)[:300]}); fix the upload "
                "(a folder tree thousands deep, files the build cannot write?) and submit again")
        await trio.to_thread.run_sync(self.prune)

    def _lookup(self, version_id: int) -> tuple[Version, Bot | None, bool] | None:
        """The version, its bot and whether its folder is there (in a worker thread)."""
        version = self.store.version(version_id)
        if version is None:
            return None
        folder = version_folder(self.ladder, version.bot, version.number)
        return version, self.store.bot_by_id(version.bot), folder.is_dir()

    async def _build_and_check(self, version_id: int) -> None:
        found = await trio.to_thread.run_sync(self._lookup, version_id)
        if found is None:
            return
        version, bot, present = found
        language = self.ladder.languages.get(version.language)
        folder = version_folder(self.ladder, version.bot, version.number)
        if bot is None or language is None or not present:
            why = "its language is no longer offered" if language is None else "its files are missing"
            await trio.to_thread.run_sync(self.store.set_version_state, version_id, "failed",
                                          f"not built: {why}; submit it again")
            return
        log = ""
        if language.build:
            await trio.to_thread.run_sync(self.store.set_version_state, version_id, "building", "building…")
            try:
                built = await run_build(language.build, folder, self.ladder.build_limits)
            except BuildError as exc:
                await trio.to_thread.run_sync(self.store.set_version_state, version_id, "failed",
                                              f"the ladder cannot build here: {exc}")
                return
            log = f"$ {language.build}\n{built.log}\n{built.summary()}\n"
            if not built.ok:
                await trio.to_thread.run_sync(
                    self.store.set_version_state, version_id, "failed",
                    log + "\nThe version will not play. Fix the build (it runs without network: put what it needs "
                          "in the upload) and submit again.")
                return
        await trio.to_thread.run_sync(self.store.set_version_state, version_id, "checking", log + "checking…")
        passed, text = await trio.to_thread.run_sync(self._check, language, folder, f"{bot.name} v{version.number}")
        state = "ready" if passed else "failed"
        tail = "\nReady: this version plays." if passed else \
            "\nThe version will not play: fix what failed above (docs/protocol.md) and submit again."
        await trio.to_thread.run_sync(self.store.set_version_state, version_id, state,
                                      f"{log}$ arena check\n{text}\n{tail}")
        if passed:
            self.on_ready()

    def prune(self) -> None:
        """The version policy: each bot keeps its newest `keep_versions` versions (and
        the one that plays); an older one's files go, its games and log stay."""
        for version in self.store.versions_to_prune(self.ladder.keep_versions):
            self.store.remove_version(version.id)
            with contextlib.suppress(RecursionError):  # Python 3.11 walks a tree recursively
                shutil.rmtree(version_folder(self.ladder, version.bot, version.number), ignore_errors=True)

    def _check(self, language: Language, folder: Path, label: str) -> tuple[bool, str]:
        """`arena check` at every table's game (quick: one seat count each)."""
        games = list({t.game.id: t.game for t in self.ladder.tables}.values())
        try:
            def spec_for(game: Game) -> BotSpec:
                return bot_spec(self.ladder, language, folder, label, game)
            spec_for(games[0])
        except BotNameError as exc:
            return False, f"the run command cannot start: {exc}"
        control = self.ladder.tables[0].time_control
        checker = Checker(spec_for, games, time_control=control if control.per_move_s else TimeControl(per_move_s=1),
                          timing=Timing(startup_s=10.0, grace_s=0.05), limits=self.ladder.limits, quick=True)
        report = checker.run()
        return report.passed, report_text(report)
