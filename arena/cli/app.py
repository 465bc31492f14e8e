"""The `arena` Typer application: its commands, in the order `arena --help` lists
them, each defined in the module of its group."""

from __future__ import annotations

import sys
import tempfile
from typing import Annotated

import typer

from arena.cli import bench, check, demo, doctor, inspect, play, records, rerun, sprt
from arena.cli.common import console, errors
from arena.cli.ladder import ladder_app
from arena.cli.layout import ArenaGroup
from arena.cli.league import league_app, serve_command
from arena.cli.match import match_command
from arena.version import __version__

app = typer.Typer(
    cls=ArenaGroup,
    rich_markup_mode="markdown",
    help="A referee for bots playing tree-growing strategy games (JSON lines over stdin/stdout).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback(invoke_without_command=True)
def root(
    version: Annotated[bool, typer.Option("--version", help="Print the arena's version and exit.")] = False,
) -> None:
    if version:
        console.print(f"arena {__version__}")
        raise typer.Exit()


app.command("games")(inspect.games_command)
app.command("legal")(inspect.legal_command)
app.command("perft")(inspect.perft_command)
app.command("play")(play.play_command)
app.command("replay")(records.replay_command)
app.command("verify")(records.verify_command)
app.command("rerun")(rerun.rerun_command)
app.command("demo")(demo.demo_command)
app.command("bench")(bench.bench_command)
app.command("doctor")(doctor.doctor_command)
app.add_typer(league_app, name="league")
app.add_typer(ladder_app, name="ladder")
app.command("serve")(serve_command)
app.command("match")(match_command)
app.command("sprt")(sprt.sprt_command)
app.command("check")(check.check_command)


def main() -> None:
    """Console-script entry point. An exception that escapes a command is a bug of the
    arena: its traceback goes to a file and the user gets one line saying where."""
    try:
        app()
    except Exception as exc:  # the last net: every expected problem is a message of its own
        import traceback

        with tempfile.NamedTemporaryFile("w", prefix="arena-crash-", suffix=".txt", delete=False) as report:
            traceback.print_exc(file=report)
        errors.print(f"internal error: {type(exc).__name__}: {str(exc)[:200]} (a bug of the arena; "
                     f"the traceback is in {report.name}: please report it)", style="bold red", highlight=False)
        sys.exit(70)
