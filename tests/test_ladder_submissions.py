"""The ladder's door for new versions: what is refused and with which status, that a
refusal leaves nothing behind, that a version is built, checked and made ready (or
failed with its log and the fix), that the version policy removes old versions' files,
and that a submission an interruption cut short is built on the next start."""

from __future__ import annotations

import dataclasses
import io
import zipfile
from pathlib import Path

import pytest
import trio

from arena.ladder.config import Ladder
from arena.ladder.service import init_ladder
from arena.ladder.store import Entrant, LadderStore
from arena.ladder.submissions import SubmissionError, Submissions, version_folder
from arena.process.sandbox import probe

RANDOM_BOT = (Path(__file__).resolve().parents[1] / "bots" / "random_bot.py").read_bytes()

pytestmark = pytest.mark.skipif(probe().bwrap is None, reason="the ladder builds and runs bots only in its sandbox")


def _door(tmp_path: Path, **changes: object) -> tuple[Ladder, LadderStore, Submissions, Entrant, Entrant]:
    ladder = dataclasses.replace(init_ladder(tmp_path / "ladder", "test", ["btt"]), **changes)  # type: ignore[arg-type]
    store = LadderStore.open(ladder.database)
    store.add_entrant("ann", "!")
    store.add_entrant("ben", "!")
    ann, ben = store.entrant("ann"), store.entrant("ben")
    assert ann is not None and ben is not None
    return ladder, store, Submissions(ladder, store), ann, ben


def _refused(submissions: Submissions, entrant: Entrant, name: str, language: str, file_name: str,
             data: bytes) -> SubmissionError:
    async def main() -> None:
        await submissions.submit(entrant, name, language, file_name, data)

    with pytest.raises(SubmissionError) as caught:
        trio.run(main)
    return caught.value


def test_the_door_refuses_with_the_status_that_says_why(tmp_path: Path) -> None:
    ladder, store, door, ann, ben = _door(tmp_path, max_upload_bytes=4096, submissions_per_hour=2)
    assert _refused(door, ann, "../etc", "python", "bot.py", RANDOM_BOT).status == 400
    unknown = _refused(door, ann, "ann", "cobol", "bot.py", RANDOM_BOT)
    assert unknown.status == 400 and "python" in str(unknown)
    assert _refused(door, ann, "ann", "python", "bot.py", b"x" * 5000).status == 413
    damaged = _refused(door, ann, "ann", "python", "bot.zip", b"PK\x03\x04 not a zip")
    assert damaged.status == 400
    assert store.bot("ann") is None  # nothing was stored for a refused upload
    assert [p.name for p in ladder.bots_folder.iterdir()] == []  # nor left on the disk

    async def two() -> None:
        for _ in range(2):
            await door.submit(ann, "ann", "python", "bot.py", b"print()\n")

    trio.run(two)
    assert _refused(door, ann, "ann", "python", "bot.py", b"print()\n").status == 429
    taken = _refused(door, ben, "ann", "python", "bot.py", b"print()\n")
    assert taken.status == 403 and "another entrant" in str(taken)
    store.set_status("ann", "disqualified", "cheating", "organiser")
    barred = _refused(door, ann, "ann", "python", "bot.py", b"print()\n")
    assert barred.status == 403 and "cheating" in str(barred)


def test_a_version_is_built_checked_and_made_ready_or_failed_with_the_fix(tmp_path: Path) -> None:
    ladder, store, door, ann, ben = _door(tmp_path)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr("annbot/bot.py", RANDOM_BOT)  # a zipped folder: its top folder is stripped

    async def main() -> tuple[int, int]:
        good = await door.submit(ann, "ann", "python", "annbot.zip", archive.getvalue())
        bad = await door.submit(ben, "ben", "c", "bot.c", b"int main(void) { return nope; }\n")
        await door.prepare(good.id)
        await door.prepare(bad.id)
        return good.id, bad.id

    good, bad = trio.run(main)
    ready, failed = store.version(good), store.version(bad)
    assert ready is not None and ready.state == "ready" and "passed   handshake" in ready.log
    assert failed is not None and failed.state == "failed"
    assert "nope" in failed.log and "submit again" in failed.log and "without network" in failed.log
    assert [p.version for p in store.playing("btt-2")] == [good]


def test_old_versions_go_and_an_interrupted_build_is_finished_on_start(tmp_path: Path) -> None:
    ladder, store, door, ann, _ = _door(tmp_path, keep_versions=2)

    async def three() -> list[int]:
        ids = []
        for _ in range(3):
            version = await door.submit(ann, "ann", "python", "bot.py", RANDOM_BOT)
            ids.append(version.id)
        for version_id in ids[:2]:
            await door.prepare(version_id)
        return ids

    first, second, third = trio.run(three)
    # The third was submitted but never built: as if the ladder had been killed.
    assert store.version(third) is not None and store.version(third).state == "building"  # type: ignore[union-attr]
    again = Submissions(ladder, store)

    async def start() -> None:
        with trio.move_on_after(120):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(again.work)
                while store.version(third).state != "ready":  # type: ignore[union-attr]  # noqa: ASYNC110
                    await trio.sleep(0.1)
                nursery.cancel_scope.cancel()

    trio.run(start)
    assert store.version(third).state == "ready"  # type: ignore[union-attr]
    oldest = store.version(first)
    assert oldest is not None and oldest.state == "removed"
    assert not version_folder(ladder, oldest.bot, oldest.number).exists()
    assert version_folder(ladder, oldest.bot, 3).is_dir()
    assert any(actor == "ladder" and "remov" in action for _, actor, action, _, _ in store.actions())


def test_a_version_that_breaks_its_build_fails_alone_and_the_next_is_built(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.ladder import submissions

    ladder, store, door, ann, ben = _door(tmp_path)
    from arena.process.build import run_build as real_build

    calls: list[Path] = []

    async def breaking(command: str, folder: Path, limits: object) -> object:
        calls.append(folder)
        if len(calls) == 1:
            raise RecursionError("maximum recursion depth exceeded")  # a tree too deep to walk
        return await real_build(command, folder, limits)  # type: ignore[arg-type]

    monkeypatch.setattr(submissions, "run_build", breaking)
    source = (Path(__file__).parent / "ladder_bots" / "random_bot.c").read_bytes()

    async def main() -> tuple[int, int]:
        first = await door.submit(ann, "ann", "c", "bot.c", source)
        second = await door.submit(ben, "ben", "c", "bot.c", source)
        await door.prepare(first.id)
        await door.prepare(second.id)
        return first.id, second.id

    first, second = trio.run(main)
    broken = store.version(first)
    assert broken is not None and broken.state == "failed" and "RecursionError" in broken.log
    built = store.version(second)
    assert built is not None and built.state == "ready"


def test_parallel_uploads_cannot_all_pass_the_hourly_check(tmp_path: Path) -> None:
    ladder, store, door, ann, _ = _door(tmp_path, submissions_per_hour=1)
    statuses: list[int] = []

    async def one() -> None:
        try:
            await door.submit(ann, "ann", "python", "bot.py", RANDOM_BOT)
            statuses.append(202)
        except SubmissionError as exc:
            statuses.append(exc.status)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for _ in range(3):
                nursery.start_soon(one)

    trio.run(main)
    assert sorted(statuses) == [202, 429, 429]


def test_a_ladder_where_every_sandbox_can_see_it_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.ladder import service
    from arena.ladder.service import LadderService, NoSandboxError

    ladder = init_ladder(tmp_path / "ladder", "test", ["btt"])
    assert (ladder.database.stat().st_mode & 0o777) == 0o600  # its secret and token hashes are the organiser's
    monkeypatch.setattr(service, "shown_anyway", lambda path: True)  # as if it lay under /opt
    with pytest.raises(NoSandboxError, match="could read the ladder's secret"):
        LadderService(ladder)
