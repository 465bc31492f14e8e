"""The escape suite, toolchain resolution: the arena follows shims, links, `#!` lines and
venvs on the host to know what a bot's program needs, and asks a version manager's
`which` there, outside any sandbox. A bot's own files must never make it run anything
on the host (a fake shim naming the bot's own "manager"), nor show a folder that is no
program's installation (a `#!` line or a venv's `home` naming ~/.ssh)."""

from __future__ import annotations

import os
import stat
import uuid
from pathlib import Path

import pytest

from arena.process import toolchain
from arena.process.toolchain import resolve
from tests.helpers.escape import assert_game_sound, honest, play, skip_without_sandbox

EVIL = """#!/bin/sh
touch "{marker}"
echo /usr/bin/python3
"""


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture(autouse=True)
def fresh_resolution() -> None:
    toolchain._resolve.cache_clear()


def marker() -> Path:
    return Path(f"/tmp/arena-host-ran-{uuid.uuid4().hex}")


@pytest.mark.parametrize("manager", ["./evil", "{bot}/evil", "{bot}/pyenv", "{bot}/sub/../pyenv"])
def test_a_bot_folders_fake_shim_never_runs_its_manager_on_the_host(tmp_path: Path, manager: str) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    ran = marker()
    (bot / "sub").mkdir()
    for name in ("evil", "pyenv"):
        executable(bot / name, EVIL.format(marker=ran))
    executable(bot / "run", f'#!/bin/sh\nexec "{manager.format(bot=bot)}" exec "$program" "$@"\n')
    chain = resolve("./run", bot, "/usr/bin:/bin")
    assert not ran.exists(), f"the bot's {manager} ran on the host"
    assert chain.program == str(bot / "run")


def test_a_link_named_like_a_linked_manager_in_the_bot_folder_is_not_asked(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    ran = marker()
    executable(bot / "mise", EVIL.format(marker=ran))
    (bot / "python3").symlink_to("mise")
    resolve("./python3", bot, "/usr/bin:/bin")
    assert not ran.exists()


def test_a_hash_bang_shim_in_a_shared_writable_folder_is_not_asked(tmp_path: Path) -> None:
    """A bot cannot write the host's /tmp from its sandbox, but an unsandboxed process
    or an earlier run could have: a shim or manager there is never trusted."""
    shared = Path("/tmp") / f"arena-shim-{uuid.uuid4().hex}"
    (shared / "libexec").mkdir(parents=True)
    ran = marker()
    try:
        executable(shared / "libexec" / "pyenv", EVIL.format(marker=ran))
        executable(shared / "python3", f'#!/bin/sh\nexec "{shared}/libexec/pyenv" exec "$program" "$@"\n')
        bot = tmp_path / "bot"
        bot.mkdir()
        executable(bot / "bot.py", f"#!{shared}/python3\n")
        resolve("./bot.py", bot, "/usr/bin:/bin")
        assert not ran.exists()
    finally:
        for path in (shared / "libexec" / "pyenv", shared / "python3"):
            path.unlink()
        (shared / "libexec").rmdir()
        shared.rmdir()


def test_no_folder_is_shown_for_a_hash_bang_line_or_a_venv_home_that_names_no_program(tmp_path: Path) -> None:
    secrets = tmp_path / "home" / ".ssh"
    secrets.mkdir(parents=True)
    (secrets / "id_ed25519").write_text("PRIVATE KEY")
    bot = tmp_path / "bot"
    (bot / "bin").mkdir(parents=True)
    executable(bot / "bot.sh", f"#!{secrets}/id_ed25519\n")
    chain = resolve("./bot.sh", bot, "/usr/bin:/bin")
    assert chain.folders == (bot,), "a #! line named a key's folder"  # the script's own folder only
    (bot / "bin" / "python3").symlink_to(os.path.realpath("/usr/bin/python3"))
    (bot / "pyvenv.cfg").write_text(f"home = {secrets}\n")
    chain = resolve("./bin/python3", bot, "/usr/bin:/bin")
    assert chain.folders == (bot,), "a venv's home named a key's folder"


def test_a_fake_shim_bot_plays_sandboxed_and_its_manager_runs_only_there(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    skip_without_sandbox()
    bot = tmp_path / "bot"
    bot.mkdir()
    ran = marker()
    executable(bot / "evil", EVIL.format(marker=ran))
    executable(bot / "run", '#!/bin/sh\nexec "./evil" exec "$program" "$@"\n')
    monkeypatch.chdir(bot)
    from arena.process.botnames import resolve_bot

    result = play([resolve_bot("./run", "btt"), honest()], tmp_path / "logs")
    assert not ran.exists()
    assert result.outcomes[0].faults and result.outcomes[0].faults[0].seat == 0  # it printed no protocol
    assert_game_sound(result, termination=result.outcomes[0].termination)


READER = """#!/usr/bin/env python3
import json, os, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        try:
            seen = open(os.environ["TOKENS"]).read() or "(empty)"
        except OSError as exc:
            seen = type(exc).__name__
        sys.stderr.write(f"credentials: {seen}\\n")
        sys.stderr.flush()
        print(json.dumps({"type": "ready", "name": "reader"}), flush=True)
    elif message["type"] == "request":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
"""


def test_a_shown_toolchain_folder_keeps_its_tokens_hidden(tmp_path: Path) -> None:
    """A program in ~/.cargo/bin shows ~/.cargo, where cargo keeps the user's registry
    tokens (credentials.toml): hidden, the bot cannot read them."""
    skip_without_sandbox()
    cargo = tmp_path / "home" / ".cargo"
    (cargo / "bin").mkdir(parents=True)
    tokens = cargo / "credentials.toml"
    tokens.write_text('[registry]\ntoken = "cio-SECRET"\n')
    tokens.chmod(0o644)
    for folder in (tmp_path, tmp_path / "home", cargo, cargo / "bin"):
        folder.chmod(0o755)  # readable by the sandbox's user, as a home's toolchain is
    program = executable(cargo / "bin" / "reader", READER)
    from arena.process.botnames import resolve_bot

    bot = resolve_bot(str(program), "btt")
    bot.env["TOKENS"] = str(tokens)
    result = play([bot, honest()], tmp_path / "logs")
    log = next((tmp_path / "logs").glob("0-*.log")).read_text()
    assert "cio-SECRET" not in log and ("credentials: PermissionError" in log or "credentials: (empty)" in log), log
    assert_game_sound(result)
