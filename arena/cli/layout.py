"""How every command's help and usage errors look, for all commands at once.

Help: Typer's rich help gives each option a type column (`<int range>
[0<=x<=9007199254740991]`, `<bool>` for a flag) that takes a quarter of an 80-column
terminal and squeezes the descriptions into ~21 characters. Here every option gets a
short metavar (N, X, TEXT, PATH; none for a flag), and ranges are left to the
description and to the error a wrong value gets.

Errors: Typer shows a usage error (a value out of range, a missing argument, an
unknown option) in a box after the usage line; every other mistake of the arena is
one `error:` line and exit code 2. `ArenaGroup.main` makes usage errors the same.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from typer.core import TyperArgument, TyperGroup, TyperOption


def short_metavar(option: TyperOption) -> str:
    """The metavar an option without one is shown with: none for a flag."""
    annotation = option.type_descriptor.annotation
    if option.is_flag or annotation is bool:
        return ""
    if annotation is int:
        return "N"
    if annotation is float:
        return "X"
    if annotation is Path:
        return "PATH"
    return "TEXT"


def _no_range() -> None:
    return None


def _no_type(ctx: Any) -> None:
    return None


def tidy_help(command: Any) -> None:
    """Short metavars, no range column, and no type beside an argument's name, for
    `command` and every subcommand (idempotent)."""
    for param in getattr(command, "params", []):
        if isinstance(param, TyperOption):
            if param.metavar is None:
                param.metavar = short_metavar(param)
            param._get_number_range_help_str = _no_range  # type: ignore[method-assign]
        elif isinstance(param, TyperArgument):
            param.display_type_rich = _no_type  # type: ignore[method-assign]
            param._get_number_range_help_str = _no_range  # type: ignore[method-assign]
    help_option = command.get_help_option(typer.Context(command))  # made on demand, then kept
    if isinstance(help_option, TyperOption):
        help_option.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        tidy_help(sub)


_QUOTED = re.compile(r"'([A-Z][A-Za-z0-9_.]*)'")
"""An argument's name in quotes ('GAME'): shown bare, as the help shows it."""
_HINT = re.compile(r"^Invalid value for ('[^']*'(?: / '[^']*')*): (.*)$", re.DOTALL)


def usage_message(error: typer.TyperException) -> str:
    """A usage error as one line: what was wrong, with the option it concerns, and
    where the help is."""
    game_hint = _game_as_option(error)
    if game_hint is not None:
        return game_hint
    text = error.format_message()
    match = _HINT.match(text)
    if match:
        text = f"{match.group(1).split(' / ')[0].strip(chr(39))}: {match.group(2)}"
    text = " ".join(_QUOTED.sub(r"\1", text).split()).rstrip(".")
    text = text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text
    ctx = getattr(error, "ctx", None)
    if ctx is not None:
        text += f"; see `{ctx.command_path} --help`"
    return text


GAME_OPTIONS = ("--game", "-g", "--game-id")
"""What people used to other tools write for the game that our commands take first."""


def _game_as_option(error: typer.TyperException) -> str | None:
    """`arena play random greedy --game btt`: the game is the command's first argument,
    which Click's "no such option" (with its guess --games) does not say."""
    ctx = getattr(error, "ctx", None)
    name = getattr(error, "option_name", None)
    if ctx is None or name not in GAME_OPTIONS:
        return None
    params = [p for p in ctx.command.params if isinstance(p, TyperArgument)]
    if not params or params[0].name != "game_id":
        return None
    return (f"{name}: the game is `{ctx.command_path}`'s first argument, not an option: e.g. "
            f"`{ctx.command_path} btt random greedy` (`arena games` lists the games)")


def _is_usage_error(error: BaseException) -> bool:
    return isinstance(error, typer.TyperException) and getattr(error, "exit_code", 1) == 2


class ArenaGroup(TyperGroup):
    """The `arena` command group: tidy help for every command, and usage errors as one
    `error:` line with exit code 2."""

    _tidied = False

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, windows_expand_args: bool = True,
             **extra: Any) -> Any:
        if not self._tidied:
            tidy_help(self)
            self._tidied = True
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except typer.TyperException as error:
            if type(error).__name__ == "NoArgsIsHelpError":  # `arena` alone: the help, as Click shows it
                print(error.format_message(), file=sys.stderr)
                sys.exit(2)
            if not _is_usage_error(error):
                raise
            from arena.cli.common import errors

            errors.print(f"[bold red]error:[/] {escape(usage_message(error))}", markup=True, highlight=False)
            sys.exit(2)
        except typer.Abort:
            print("Aborted.", file=sys.stderr)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)
