"""Bot folders travel to cluster workers, and revisions to the bench, as tar archives:
they unpack the same on every Python 3.11 (tarfile's "data" filter came in 3.11.4;
Debian's 3.11.2 lacks it), and an archive that reaches outside its folder is refused."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from arena.cluster.units import pack_folder, unpack
from arena.files import FolderError, extract_data


@pytest.fixture(params=["with the data filter", "without it (Python 3.11.2)"])
def python(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param.startswith("without"):
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    return str(request.param)


def test_a_bot_folder_unpacks_whole(tmp_path: Path, python: str) -> None:
    folder = tmp_path / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("print('ready')\n")
    (folder / "lib" / "weights.bin").write_bytes(bytes(range(256)))
    (folder / "latest.py").symlink_to("bot.py")
    name, data = pack_folder(folder)
    target = unpack(name, data, tmp_path / "cache")
    assert (target / "bot.py").read_text() == "print('ready')\n"
    assert (target / "lib" / "weights.bin").read_bytes() == bytes(range(256))
    assert (target / "latest.py").is_symlink() and (target / "latest.py").read_text() == "print('ready')\n"


def archive_of(*members: tuple[str, str]) -> tarfile.TarFile:
    """An archive of (name, link target or '' for a small file) members."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, link in members:
            info = tarfile.TarInfo(name)
            if link:
                info.type, info.linkname = tarfile.SYMTYPE, link
                archive.addfile(info)
            else:
                info.size = 2
                archive.addfile(info, io.BytesIO(b"hi"))
    buffer.seek(0)
    return tarfile.open(fileobj=buffer)


@pytest.mark.parametrize("members", [
    [("../escaped.txt", "")],
    [("out", "../../")],
    [("out", "/etc")],
    [("up", "."), ("up/../escaped.txt", "")],
], ids=["parent", "link-up", "link-absolute", "through-a-link"])
def test_an_archive_reaching_outside_is_refused(tmp_path: Path, python: str,
                                                members: list[tuple[str, str]]) -> None:
    target = tmp_path / "a" / "target"
    target.mkdir(parents=True)
    with pytest.raises((FolderError, tarfile.TarError)):
        extract_data(archive_of(*members), target)
    assert not (tmp_path / "a" / "escaped.txt").exists() and not (target / "out").exists()


def test_an_absolute_name_lands_inside_or_is_refused(tmp_path: Path, python: str) -> None:
    outside = tmp_path / "absolute.txt"
    target = tmp_path / "target"
    target.mkdir()
    try:
        extract_data(archive_of((str(outside), "")), target)
    except (FolderError, tarfile.TarError):
        pass
    else:
        assert (target / str(outside).lstrip("/")).read_text() == "hi"
    assert not outside.exists()
