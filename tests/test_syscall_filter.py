"""The system call filter, rule by rule: inside a real sandbox, each call (or use of a
call) the filter names gets what its rule says (an errno, or success that does
nothing), with its argument's high bits set too; calls it does not name still work; a
call of another architecture's ABI ends the process. The runtimes bots are written in
start and play under it (a JVM whose flock failed would print a warning on stdout,
where the protocol's first line goes)."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.process.sandbox import probe, sandbox_command
from arena.process.spec import BotSpec, Limits
from arena.process.syscall_filter import RULES
from tests.helpers.escape import skip_without_sandbox

skip_without_sandbox()
pytestmark = pytest.mark.skipif(not probe().syscall_filter, reason="no system call filter here")

CALLER = r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
fd = os.open("/etc/hostname" if os.path.exists("/etc/hostname") else "/etc/passwd", os.O_RDONLY)
results = []
for number, index, value, on_file in json.loads(sys.argv[1]):
    args = [0] * 6
    if index is not None:
        args[index] = value | (1 << 32)  # high bits the kernel ignores for an int
    if on_file:  # fcntl, fadvise64, preadv2, pwritev2: a real descriptor first
        args[0] = fd
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    results.append([result, ctypes.get_errno() if result < 0 else 0])
print(json.dumps(results))
"""


def in_sandbox(argv: list[str]) -> subprocess.CompletedProcess[str]:
    command = sandbox_command(probe(), BotSpec("filter-test", argv), Limits(), ())
    try:
        return subprocess.run(command.argv, capture_output=True, text=True, timeout=60, cwd=command.cwd,
                              env=command.env, preexec_fn=command.in_child, pass_fds=command.pass_fds)
    finally:
        command.release()


def calls() -> list[tuple[int, int | None, int, bool]]:
    """Each rule as (its call's number here, the argument to set, its value, whether
    the call takes a descriptor of an open file first)."""
    import pyseccomp

    found = []
    for rule in RULES:
        number = pyseccomp.resolve_syscall(pyseccomp.system_arch(), rule.syscall)
        number = rule.number if number < 0 and rule.number is not None else number
        found.append((int(number), rule.arg[0] if rule.arg else None, rule.arg[2] if rule.arg else 0,
                      rule.syscall in ("fcntl", "fadvise64", "preadv2", "pwritev2")))
    return found


def test_every_answers_what_it_says_in_a_sandbox() -> None:
    done = in_sandbox([sys.executable, "-c", CALLER, json.dumps(calls())])
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    for rule, (result, error) in zip(RULES, answers, strict=True):
        if rule.answer:
            assert (result, error) == (-1, rule.answer), rule
        else:
            assert (result, error) == (0, 0), rule


def test_calls_it_does_not_name_still_work() -> None:
    """fcntl's other commands (F_GETFL), a read, and F_GETLK (which may report the host's
    locks, never a sandbox's: none can take one)."""
    code = ("import fcntl, os, struct; fd = os.open('/etc/passwd', os.O_RDONLY); "
            "print(fcntl.fcntl(fd, fcntl.F_GETFL) & 3, len(os.read(fd, 4)), "
            "struct.unpack('hhqqi', fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack('hhqqi', fcntl.F_RDLCK, 0, 0, 0, 0)))"
            "[0])")
    done = in_sandbox([sys.executable, "-c", code])
    assert done.stdout.split() == ["0", "4", "2"], done.stderr  # O_RDONLY, 4 bytes, F_UNLCK


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x32 is an ABI of x86_64")
def test_a_call_of_another_abi_ends_the_process() -> None:
    """x32's flock (its number with bit 30 set): past the rules, which name this ABI's
    calls only, so the process is killed (SIGSYS), not let through."""
    code = ("import ctypes, os; l = ctypes.CDLL(None); l.syscall.restype = ctypes.c_long; "
            "print('before', flush=True); l.syscall(ctypes.c_long(0x40000000 | 73), 0, 2); print('after')")
    done = in_sandbox([sys.executable, "-c", code])
    assert done.stdout.split() == ["before"] and done.returncode != 0, (done.stdout, done.stderr)


JAVA_BOT = """
import java.io.*;
public class Bot {
  public static void main(String[] a) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.contains("\\"type\\":\\"hello\\"")) System.out.println("{\\"type\\":\\"ready\\",\\"name\\":\\"java\\"}");
      else if (line.contains("\\"type\\":\\"request\\"")) {
        int i = line.indexOf("\\"legal\\":[\\"") + 10;
        String action = line.substring(i, line.indexOf('"', i));
        System.out.println("{\\"type\\":\\"action\\",\\"action\\":\\"" + action + "\\"}");
      } else if (line.contains("\\"type\\":\\"quit\\"")) return;
      System.out.flush();
    }
  }
}
"""


@pytest.mark.skipif(shutil.which("java") is None, reason="no Java here")
def test_a_java_bot_starts_and_plays_under_the_filter(tmp_path: Path) -> None:
    """The JVM takes a lock on its performance file as it starts: granted (without
    effect), so it says nothing on stdout and the bot's first line is its `ready`."""
    from tests.helpers.escape import assert_game_sound, honest, play

    folder = tmp_path / "javabot"
    folder.mkdir()
    (folder / "Bot.java").write_text(JAVA_BOT)
    java = BotSpec("java", ["java", str(folder / "Bot.java")], str(folder))
    result = play([java, honest()], tmp_path / "logs", per_move=10)
    assert_game_sound(result)
    assert "flock" not in (tmp_path / "logs" / "0-java.log").read_text()

def test_without_libseccomp_the_arena_says_so_and_how_to_fix_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without libseccomp: bots still play in their sandbox, and both
    `arena doctor` and the first match of the process name the missing layer and the fix."""
    from arena.process import sandbox, syscall_filter
    from arena.session import request as match_request

    monkeypatch.setattr(syscall_filter, "available", lambda: "libseccomp cannot be loaded (gone): install libseccomp2")
    monkeypatch.setattr(match_request, "_noted", set())
    sandbox.probe.cache_clear()
    try:
        isolation = sandbox.probe()
        layer = next(layer for layer in isolation.layers if layer.name == "system call filter")
        assert isolation.sandbox and not isolation.syscall_filter and not layer.on
        assert "install libseccomp2" in layer.detail and "kernel keys" in layer.detail
        notes = match_request.isolation_notes(Limits())
        assert any("without the system call filter" in note and "libseccomp2" in note for note in notes), notes
    finally:
        sandbox.probe.cache_clear()
