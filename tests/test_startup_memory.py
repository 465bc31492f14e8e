"""A bot whose runtime cannot get its memory at start-up is told so (#39): a JVM under a
memory limit without cgroups prints '#' lines on stdout and the cause on stderr; the
fault is memory-limit with the limit and the fix, not "'#' is not JSON", and every
start-up message names the bot's stderr log."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.helpers.cli import run_cli_cleanly

JVM_LIKE = r'''
import sys
sys.stderr.write("OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x00000000f0000000, 268435456, 0) "
                 "failed; error='Not enough space' (errno=12)\n")
sys.stderr.flush()
sys.stdout.write("#\n# There is insufficient memory for the Java Runtime Environment to continue.\n")
sys.stdout.flush()
sys.exit(1)
'''

NOISY = r'''
import sys
print("loading weights...", flush=True)
sys.stderr.write("starting up\n")
sys.exit(1)
'''


def play(tmp_path: Path, program: str, *more: str) -> str:
    bot = tmp_path / "bot.py"
    bot.write_text(program)
    result = run_cli_cleanly("play", "btt", f"{sys.executable} {bot}", "random", "--log-dir", str(tmp_path / "logs"),
                             "--no-sandbox", *more, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    return " ".join(result.output.split())


def test_a_runtime_refused_its_memory_is_a_memory_limit_with_the_fix(tmp_path: Path) -> None:
    text = play(tmp_path, JVM_LIKE, "--memory-mb", "256")
    assert "never started" in text
    assert "could not get its memory at start-up (limit 256 MiB" in text
    assert "errno=12" in text and "--memory-mb" in text and "-Xmx128m" in text
    assert "is not JSON" not in text
    assert str(tmp_path / "logs") in text  # the stderr log is named


def test_a_malformed_first_line_names_the_stderr_log(tmp_path: Path) -> None:
    text = play(tmp_path, NOISY)
    assert "'loading weights...' is not JSON" in text and "its stderr: " + str(tmp_path / "logs") in text
    assert "could not get its memory" not in text
