"""The one way tests run a command line in-process: `arena ...` (or a small Typer app a
test builds) through Typer's runner, so that every test sees the command as a person
would, and a change to how commands are run is made here once."""

from __future__ import annotations

from collections.abc import Mapping

import typer
from typer.testing import CliRunner, Result

from arena.cli import app as arena_app

_RUNNER = CliRunner()


def run_cli(*args: str, input: str | None = None, env: Mapping[str, str | None] | None = None,
            app: typer.Typer | None = None, prog_name: str | None = None) -> Result:
    """Run `arena *args` (or `app`, when given) and return what happened, an uncaught
    exception included (in `result.exception`) for the tests that look at one."""
    return _RUNNER.invoke(arena_app if app is None else app, list(args), input=input, env=env, prog_name=prog_name)


def run_cli_cleanly(*args: str, input: str | None = None, env: Mapping[str, str | None] | None = None) -> Result:
    """Run `arena *args` and insist that it ended as a command should, with an exit
    code: an uncaught exception is a bug whatever the test checks next."""
    result = run_cli(*args, input=input, env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def exit_and_output(*args: str, env: Mapping[str, str | None] | None = None) -> tuple[int, str]:
    """Run `arena *args`: its exit code and everything it printed."""
    result = run_cli(*args, env=env)
    return result.exit_code, result.output
