"""Interpreters and toolchains as bot authors have them work sandboxed: `python3 bot.py`
through a version manager's shim (a pyenv-like one made in a temporary home), a node
bot run by its `#!/usr/bin/env node` line from an nvm-like folder, a compiled binary;
each plays with 0 faults, and nothing of the home folder but the interpreter's
installation is shown (not the arena's key, not the user's files)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.process import toolchain
from arena.process.botnames import BOTS_DIR, resolve_bot
from arena.process.sandbox import probe
from arena.process.toolchain import SYSTEM_DIRS, resolve
from tests.helpers.escape import assert_game_sound, attack_report, honest, play

needs_sandbox = pytest.mark.skipif(not probe().sandbox and os.environ.get("CI") != "true",
                                   reason=f"no sandbox here: {probe().why}")

SHIM = """#!/usr/bin/env bash
set -e
program="${{0##*/}}"
exec "{root}/libexec/pyenv" exec "$program" "$@"
"""
MANAGER = """#!/bin/sh
# A stand-in for pyenv: `which NAME` names the version's program, `exec NAME ARGS...` runs it.
root="{root}"
version="$(cat "$root/version")"
case "$1" in
  which) echo "$root/versions/$version/bin/$2" ;;
  exec) shift; name="$1"; shift; exec "$root/versions/$version/bin/$name" "$@" ;;
  *) exit 1 ;;
esac
"""


def fake_pyenv(home: Path) -> Path:
    """~/.pyenv with a shim for python3 and one version, 9.9.9: a link to this machine's
    real Python (as pyenv's versions are real installations)."""
    root = home / ".pyenv"
    (root / "shims").mkdir(parents=True)
    (root / "libexec").mkdir()
    bin_folder = root / "versions" / "9.9.9" / "bin"
    bin_folder.mkdir(parents=True)
    (bin_folder / "python3").symlink_to(os.path.realpath(sys.executable))
    (root / "version").write_text("9.9.9\n")
    for path, text in ((root / "shims" / "python3", SHIM), (root / "libexec" / "pyenv", MANAGER)):
        path.write_text(text.format(root=root))
        path.chmod(0o755)
    return root


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary home with the user's own file and the arena's key in it."""
    home = tmp_path / "home"
    (home / ".local" / "share" / "arena").mkdir(parents=True)
    (home / ".local" / "share" / "arena" / "secret").write_bytes(b"k" * 32)
    (home / "private.txt").write_text("the user's own file")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    toolchain._resolve.cache_clear()
    return home


def test_a_shim_is_asked_through_its_managers_own_which(home: Path, tmp_path: Path) -> None:
    root = fake_pyenv(home)
    (tmp_path / "bot").mkdir()
    chain = resolve("python3", tmp_path / "bot", f"{root / 'shims'}:/usr/bin:/bin")
    version = root / "versions" / "9.9.9"
    assert chain.program == str(version / "bin" / "python3")
    assert version in chain.folders and home not in chain.folders
    assert all(not toolchain.within(home, folder) for folder in chain.folders)  # no folder holds the home
    assert chain.path[0] == str(version / "bin")


def test_a_hash_bang_line_through_env_and_a_link_out_of_home(home: Path, tmp_path: Path) -> None:
    node = home / ".nvm" / "versions" / "node" / "v20.0.0" / "bin"
    node.mkdir(parents=True)
    (node / "node").symlink_to("/bin/true")
    script = tmp_path / "bot.js"
    script.write_text("#!/usr/bin/env node\n")
    script.chmod(0o755)
    chain = resolve(str(script), tmp_path, f"{node}:/usr/bin:/bin")
    assert chain.program == str(script)
    assert node.parent in chain.folders and str(node) in chain.path


def test_a_program_in_the_home_folder_is_shown_alone(home: Path, tmp_path: Path) -> None:
    """~/.local/bin/tool: its installation would be ~/.local (the arena's key is there):
    the file alone is shown."""
    tool = home / ".local" / "bin" / "tool"
    tool.parent.mkdir(parents=True)
    tool.write_bytes(b"\x7fELF")
    tool.chmod(0o755)
    chain = resolve("tool", tmp_path, f"{tool.parent}:/usr/bin")
    assert chain.folders == (tool,)


def test_a_virtual_environment_and_the_python_it_was_made_from(tmp_path: Path) -> None:
    chain = resolve(sys.executable, tmp_path)
    if sys.prefix == sys.base_prefix:
        pytest.skip("the tests do not run in a virtual environment")
    assert Path(sys.prefix).resolve() in [f.resolve() for f in chain.folders]
    interpreter = Path(os.path.realpath(sys.executable))
    if any(interpreter.is_relative_to(system) for system in SYSTEM_DIRS):  # a venv of the system's Python
        assert not any(folder.is_relative_to(system) for folder in chain.folders for system in SYSTEM_DIRS)
    else:  # of a version manager's Python: its installation is shown too
        assert any(interpreter.is_relative_to(f) for f in chain.folders)


@needs_sandbox
def test_python3_through_a_pyenv_shim_plays_sandboxed_and_sees_nothing_else_of_home(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = fake_pyenv(home)
    monkeypatch.setenv("PATH", f"{root / 'shims'}:/usr/local/bin:/usr/bin:/bin")
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copy(BOTS_DIR / "zoo" / "escape.py", mine / "bot.py")
    monkeypatch.chdir(mine)
    bot = resolve_bot("python3 bot.py", "btt")
    assert bot.cwd == str(mine.resolve())
    bot.env.update({"ZOO_ATTACK": "read", "ZOO_TARGET": str(home / "private.txt"),
                    "ZOO_TARGET2": str(home / ".local" / "share" / "arena" / "secret")})
    result = play([bot, honest()], tmp_path / "logs", games=2)
    assert all(not o.faults for o in result.outcomes)
    assert attack_report(tmp_path / "logs", "read") == ["read 0 failed: FileNotFoundError; read 1 failed: "
                                                        "FileNotFoundError"]
    assert_game_sound(result)


@needs_sandbox
@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_a_node_bot_run_by_its_hash_bang_line_from_an_nvm_folder(home: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    node = home / ".nvm" / "versions" / "node" / "v20.0.0" / "bin"
    node.mkdir(parents=True)
    (node / "node").symlink_to(os.path.realpath(str(shutil.which("node"))))
    monkeypatch.setenv("PATH", f"{node}:/usr/bin:/bin")
    mine = tmp_path / "mine"
    mine.mkdir()
    script = mine / "bot.js"
    script.write_text("#!/usr/bin/env node\n" + (BOTS_DIR / "random_bot.js").read_text())
    script.chmod(0o755)
    monkeypatch.chdir(mine)
    result = play([resolve_bot("./bot.js", "btt"), honest()], tmp_path / "logs", games=2)
    assert all(not o.faults for o in result.outcomes)
    assert_game_sound(result)


@needs_sandbox
@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_a_compiled_bot_plays_sandboxed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    subprocess.run(["cc", "-O2", "-o", str(mine / "echo"), str(BOTS_DIR / "echo_bot.c")], check=True)
    monkeypatch.chdir(tmp_path)
    bot = resolve_bot("mine/echo", "btt")
    assert bot.cwd == str(mine.resolve())
    result = play([bot, honest()], tmp_path / "logs", games=2)
    assert all(not o.faults for o in result.outcomes)
    assert_game_sound(result)
