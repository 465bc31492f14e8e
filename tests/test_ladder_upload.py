"""An entrant's upload unpacked (arena/ladder/upload.py): what people send unpacks as
they meant it, and every hostile archive is refused with nothing left behind."""

from __future__ import annotations

import io
import lzma
import stat
import struct
import tarfile
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.ladder.upload import UploadError, UploadLimits, unpack_upload

MAIN = b"print('hello')\n"


def zip_of(*entries: tuple[str, bytes] | zipfile.ZipInfo, data: bytes = b"") -> bytes:
    """A zip of (name, content) pairs, or of ZipInfo records, each holding `data`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate names written on purpose
        for entry in entries:
            if isinstance(entry, zipfile.ZipInfo):
                archive.writestr(entry, data)
            else:
                archive.writestr(*entry)
    return buffer.getvalue()


def zip_info(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    return info


def tar_of(*members: tuple[tarfile.TarInfo, bytes], mode: str = "w", pax: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode, format=tarfile.PAX_FORMAT, pax_headers=pax) as archive:  # type: ignore[call-overload]
        for info, data in members:
            info.size = len(data) if info.isreg() else 0
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def member(name: str, kind: bytes = tarfile.REGTYPE, mode: int = 0o644, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname = kind, mode, link
    return info


def tree(folder: Path) -> dict[str, int]:
    """Every path under `folder`, relative, with its permission bits."""
    return {path.relative_to(folder).as_posix(): stat.S_IMODE(path.lstat().st_mode) for path in folder.rglob("*")}


# ---- what people send -------------------------------------------------------------


def test_a_zipped_folder_unpacks_without_its_top_folder(tmp_path: Path) -> None:
    data = zip_of(("mybot/", b""), ("mybot/main.py", MAIN), ("mybot/lib/util.py", b"X = 1\n"),
                  zip_info("mybot/run.sh", stat.S_IFREG | 0o755), data=b"#!/bin/sh\n")
    into = tmp_path / "src"
    assert unpack_upload("mybot.zip", data, into) == ["lib/util.py", "main.py", "run.sh"]
    assert tree(into) == {"main.py": 0o644, "lib": 0o755, "lib/util.py": 0o644, "run.sh": 0o755}
    assert (into / "main.py").read_bytes() == MAIN
    assert (into / "run.sh").read_bytes() == b"#!/bin/sh\n"
    assert stat.S_IMODE(into.stat().st_mode) == 0o755


def test_macos_resource_forks_are_left_out_and_the_folder_still_stripped(tmp_path: Path) -> None:
    data = zip_of(("mybot/main.py", MAIN), ("__MACOSX/mybot/._main.py", b"\0\5\26\7"))
    assert unpack_upload("mybot.zip", data, tmp_path / "src") == ["main.py"]


def test_files_at_the_top_or_under_two_folders_keep_their_paths(tmp_path: Path) -> None:
    assert unpack_upload("a.zip", zip_of(("main.py", MAIN)), tmp_path / "a") == ["main.py"]
    data = zip_of(("src/main.c", b"int main(void){return 0;}\n"), ("include/bot.h", b""))
    assert unpack_upload("b.zip", data, tmp_path / "b") == ["include/bot.h", "src/main.c"]
    assert unpack_upload("c.zip", zip_of(("bot/main.py", MAIN), ("README", b"")), tmp_path / "c") == \
        ["README", "bot/main.py"]


@pytest.mark.parametrize(("suffix", "mode"), [(".tar", "w"), (".tar.gz", "w:gz"), (".tgz", "w:gz"),
                                              (".tar.xz", "w:xz"), (".tar.bz2", "w:bz2")])
def test_every_kind_of_tar_unpacks(tmp_path: Path, suffix: str, mode: str) -> None:
    data = tar_of((member("./bot", tarfile.DIRTYPE, 0o700), b""), (member("./bot/main.py"), MAIN),
                  (member("./bot/build.sh", mode=0o4777), b"cc main.c\n"), mode=mode)
    into = tmp_path / "src"
    assert unpack_upload(f"bot{suffix}", data, into) == ["build.sh", "main.py"]
    assert tree(into) == {"main.py": 0o644, "build.sh": 0o755}  # no set-user-ID, no write for others
    assert (into / "main.py").read_bytes() == MAIN


def test_a_compressed_tar_misnamed_as_plain_tar_still_unpacks(tmp_path: Path) -> None:
    assert unpack_upload("bot.tar", tar_of((member("main.py"), MAIN), mode="w:gz"), tmp_path / "src") == ["main.py"]


def test_one_source_file_is_written_under_its_base_name(tmp_path: Path) -> None:
    assert unpack_upload("bot.py", MAIN, tmp_path / "a") == ["bot.py"]
    assert tree(tmp_path / "a") == {"bot.py": 0o644}
    assert (tmp_path / "a" / "bot.py").read_bytes() == MAIN
    assert unpack_upload("C:\\Users\\me\\bots\\main.c", b"int main;", tmp_path / "b") == ["main.c"]
    assert unpack_upload("../../etc/bot.py", MAIN, tmp_path / "c") == ["bot.py"]
    assert tree(tmp_path) == {"a": 0o755, "a/bot.py": 0o644, "b": 0o755, "b/main.c": 0o644, "c": 0o755,
                              "c/bot.py": 0o644}


def test_an_empty_folder_given_is_used(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    assert unpack_upload("bot.py", MAIN, tmp_path / "src") == ["bot.py"]


# ---- what is refused --------------------------------------------------------------


def lying_zip() -> bytes:
    """A zip whose one member declares 10 bytes and holds 100,000 (both headers lie)."""
    data = bytearray(zip_of(("big.txt", b"A" * 100_000)))
    local = data.index(b"PK\x03\x04")
    struct.pack_into("<I", data, local + 22, 10)
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, 10)
    return bytes(data)


def zip_with_name(name: bytes) -> bytes:
    """A zip whose member's name is `name` exactly (zipfile will not write a NUL)."""
    placeholder = b"Q" * len(name)
    return zip_of((placeholder.decode(), MAIN)).replace(placeholder, name)


def encrypted_zip() -> bytes:
    """A zip whose member is marked encrypted (zipfile writes none: the flag is set in
    both headers)."""
    data = bytearray(zip_of(("main.py", MAIN)))
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        where = data.index(signature) + offset
        struct.pack_into("<H", data, where, struct.unpack_from("<H", data, where)[0] | 0x1)
    return bytes(data)


def bzip2_zip() -> bytes:
    info = zipfile.ZipInfo("main.py")
    info.compress_type = zipfile.ZIP_BZIP2
    return zip_of(info, data=MAIN)


def pax_bomb() -> bytes:
    """A tar.xz of a few kilobytes whose pax header alone unpacks to 20 MB (read whole
    into memory by tarfile, were it not bounded first)."""
    raw = tar_of((member("main.py"), MAIN), pax={"comment": "x" * (20 << 20)})
    return lzma.compress(raw, preset=1)


SMALL = UploadLimits(max_entries=5, max_unpacked_bytes=1000, max_path_chars=200)

REFUSED: list[tuple[str, str, Callable[[], bytes], str]] = [
    ("zip slip", "bot.zip", lambda: zip_of(("../evil.py", MAIN)), "'..'"),
    ("tar slip", "bot.tar", lambda: tar_of((member("bot/../../evil.py"), MAIN)), "'..'"),
    ("absolute path in a zip", "bot.zip", lambda: zip_of(("/etc/cron.d/evil", MAIN)), "absolute path"),
    ("absolute path in a tar", "bot.tgz", lambda: tar_of((member("/tmp/evil"), MAIN), mode="w:gz"), "absolute path"),
    ("backslash", "bot.zip", lambda: zip_of(("..\\evil.py", MAIN)), "backslash"),
    ("drive letter", "bot.zip", lambda: zip_of(("C:/evil.py", MAIN)), "drive letter"),
    ("NUL in a name", "bot.zip", lambda: zip_with_name(b"main.py\0.txt"), "control character"),
    ("escape in a name", "bot.tar", lambda: tar_of((member("main\x1b[2J.py"), MAIN)), "control character"),
    ("symbolic link in a tar", "bot.tar",
     lambda: tar_of((member("passwd", tarfile.SYMTYPE, link="/etc/passwd"), b"")), "symbolic link"),
    ("symbolic link in a zip", "bot.zip",
     lambda: zip_of(zip_info("passwd", stat.S_IFLNK | 0o777), data=b"/etc/passwd"), "symbolic link"),
    ("hard link", "bot.tar", lambda: tar_of((member("main.py"), MAIN), (member("shadow", tarfile.LNKTYPE,
                                                                          link="/etc/shadow"), b"")), "hard link"),
    ("character device", "bot.tar", lambda: tar_of((member("mem", tarfile.CHRTYPE), b"")), "a device"),
    ("block device", "bot.tar", lambda: tar_of((member("sda", tarfile.BLKTYPE), b"")), "a device"),
    ("device in a zip", "bot.zip", lambda: zip_of(zip_info("mem", stat.S_IFCHR | 0o666)), "a device"),
    ("FIFO", "bot.tar", lambda: tar_of((member("pipe", tarfile.FIFOTYPE), b"")), "a FIFO"),
    ("too many entries", "bot.zip", lambda: zip_of(*((f"f{i}.py", b"") for i in range(6))), "more than 5 files"),
    ("too many bytes declared", "bot.tar", lambda: tar_of((member("big"), b"x" * 1001)), "more than 1000 bytes"),
    ("a zip whose header lies about its size", "bot.zip", lying_zip, "damaged"),
    ("a tar.xz of a 20 MB header", "bot.tar.xz", pax_bomb, "more than 1000 bytes"),
    ("a folder name of 300 characters", "bot.zip", lambda: zip_of(("d" * 300 + "/main.py", MAIN)),
     "more than the 200 allowed"),
    ("duplicate names", "bot.zip", lambda: zip_of(("main.py", MAIN), ("main.py", b"import os\n")), "twice"),
    ("a file where a folder is needed", "bot.tar", lambda: tar_of((member("lib"), b""), (member("lib/x.py"), b"")),
     "as a file and as the folder"),
    ("an empty zip", "bot.zip", lambda: zip_of(), "no files"),
    ("a tar of folders alone", "bot.tar", lambda: tar_of((member("a", tarfile.DIRTYPE, 0o755), b"")), "no files"),
    ("not a zip", "bot.zip", lambda: b"PK but not really a zip archive", "damaged"),
    ("a tar.gz cut short", "bot.tar.gz", lambda: tar_of((member("main.py"), MAIN * 100), mode="w:gz")[:60],
     "damaged"),
    ("not a tar", "bot.tar", lambda: b"hello" * 300, "damaged"),
    ("an encrypted zip", "bot.zip", encrypted_zip, "encrypted"),
    ("a zip member in bzip2", "bot.zip", bzip2_zip, "compressed with bzip2"),
    ("an unsafe plain name", "-rf", lambda: MAIN, "is not one the arena writes"),
    ("a hidden plain name", ".bashrc", lambda: MAIN, "is not one the arena writes"),
    ("a plain name of dots", "..", lambda: MAIN, "is not one the arena writes"),
]


@pytest.mark.parametrize(("filename", "make", "words"), [case[1:] for case in REFUSED], ids=[c[0] for c in REFUSED])
def test_a_hostile_upload_is_refused_and_nothing_stays(tmp_path: Path, filename: str, make: Callable[[], bytes],
                                                       words: str) -> None:
    into = tmp_path / "incoming" / "src"
    with pytest.raises(UploadError, match="; ") as refused:
        unpack_upload(filename, make(), into, SMALL)
    assert words in str(refused.value)
    assert not into.exists()
    assert list((tmp_path / "incoming").iterdir()) == []
    assert not (tmp_path / "evil.py").exists() and not (tmp_path.parent / "evil.py").exists()


def test_the_lying_zip_is_refused_even_where_the_bound_is_large(tmp_path: Path) -> None:
    with pytest.raises(UploadError, match="damaged"):
        unpack_upload("bot.zip", lying_zip(), tmp_path / "src")
    assert not (tmp_path / "src").exists()


def test_an_upload_larger_than_allowed_is_refused_before_anything_is_made(tmp_path: Path) -> None:
    with pytest.raises(UploadError, match="more than the 100 allowed; leave out build products"):
        unpack_upload("bot.zip", b"x" * 101, tmp_path / "src", UploadLimits(max_bytes=100))
    assert not (tmp_path / "src").exists()


def test_a_folder_that_holds_files_is_never_unpacked_into_nor_removed(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "keep.txt").write_text("mine")
    with pytest.raises(UploadError, match="already holds files"):
        unpack_upload("bot.py", MAIN, tmp_path / "src")
    assert (tmp_path / "src" / "keep.txt").read_text() == "mine"
