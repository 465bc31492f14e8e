"""The commands' option groups: `takes` shows Typer a dataclass's fields, each group's
in its place, and hands the command the dataclass built from what was parsed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import pytest
import typer

from arena.cli.options import takes
from tests.helpers.cli import run_cli


@dataclass(frozen=True)
class Pair:
    low: Annotated[int, typer.Option("--low", help="The low end.")] = 1
    high: Annotated[int, typer.Option("--high", help="The high end.")] = 9


@dataclass(frozen=True)
class Command:
    name: Annotated[str, typer.Argument(help="A name.")]
    first: Annotated[bool, typer.Option("--first", help="Before the group.")] = False
    pair: Pair = Pair()
    last: Annotated[str, typer.Option("--last", help="After the group.")] = "z"


def test_a_command_gets_its_options_as_one_dataclass_with_its_groups_built() -> None:
    seen: list[Command] = []

    @takes(Command)
    def command(options: Command) -> None:
        """Record what was parsed."""
        seen.append(options)

    app = typer.Typer()
    app.command("go")(command)
    app.command("other")(lambda: None)  # two commands: `go` is a subcommand, as in the arena
    result = run_cli("go", "ada", "--high", "4", "--first", app=app)
    assert result.exit_code == 0, result.output
    assert seen == [Command("ada", True, Pair(1, 4), "z")]
    help_text = run_cli("go", "--help", app=app).output
    # The help lists the group's options where the group stands, and the docstring.
    assert help_text.index("--first") < help_text.index("--low") < help_text.index("--high") < help_text.index("--last")
    assert "Record what was parsed." in help_text


def test_two_options_of_one_name_are_refused_when_the_command_is_declared() -> None:
    @dataclass(frozen=True)
    class Clash:
        low: int = 0
        pair: Pair = Pair()

    with pytest.raises(TypeError, match="share a field name"):
        takes(Clash)
