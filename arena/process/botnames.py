"""Turn what the user typed for a bot into a BotSpec: a shipped bot's short name or a
command line. Python bots run with this interpreter (sys.executable): a version-manager
shim on PATH can add 100 ms to every start."""

from __future__ import annotations

import difflib
import importlib.util
import os
import shlex
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

from arena.errors import ArenaError, excerpt
from arena.process.botfolder import place
from arena.process.spec import BotSpec

BOTS_DIR = Path(__file__).resolve().parents[2] / "bots"

SHIPPED: dict[str, str] = {
    "random": "random_bot.py",
    "random-js": "random_bot.js",
    "mcts": "mcts.py",
}
"""Short names usable in every game; `greedy`, `search`... resolve per game below."""

NEEDS: dict[str, tuple[str, str]] = {
    "mcts": ("pyspiel", "the rl extra (OpenSpiel), which is not installed: pip install 'arena[rl]'"),
}
"""Shipped bots that import an optional extra: the module to find and the fix."""

PER_GAME = ("greedy", "search")
"""Short names resolved to bots/<game>_<name>.py for the game being played."""


class BotNameError(ArenaError, ValueError):
    """A bot the user named cannot be started."""


def shipped_bots(game_id: str) -> dict[str, Path]:
    """Every short name usable in `game_id`, with its script: `random`, `random-js`,
    `greedy` (bots/<game>_greedy.py), `<game>-greedy` for any game, `zoo/<name>`."""
    bots = {name: BOTS_DIR / script for name, script in SHIPPED.items()}
    for path in sorted(BOTS_DIR.glob("*_*.py")):
        for kind in PER_GAME:
            if path.stem.endswith(f"_{kind}"):
                game = path.stem[: -len(kind) - 1].replace("_", "-")
                bots[f"{game}-{kind}"] = path
                if game == game_id:
                    bots[kind] = path
    for path in sorted((BOTS_DIR / "zoo").glob("[a-z]*.py")):
        bots[f"zoo/{path.stem}"] = path
    return bots


def shipped_names(game_id: str) -> list[str]:
    """Short names available for `game_id` (for help texts and errors)."""
    return [name for name in shipped_bots(game_id) if not name.startswith("zoo/")]


def games_with(kind: str) -> list[str]:
    """The games that have a shipped bot of this kind (`greedy`, `search`)."""
    return sorted(path.stem[: -len(kind) - 1].replace("_", "-") for path in BOTS_DIR.glob(f"*_{kind}.py"))


def names_help(game_id: str) -> str:
    """Every shipped name as a person can use it in `game_id`: the short names that
    play it, the per-game names it has no bot for (and which games have one), the
    other games' bots by their full names, and the zoo."""
    usable = [name for name in SHIPPED] + [kind for kind in PER_GAME if kind in shipped_bots(game_id)]
    shown = [name if name not in NEEDS or importlib.util.find_spec(NEEDS[name][0]) else f"{name} (needs the rl "
             "extra)" for name in usable]
    text = f"Shipped bots for {game_id}: {', '.join(shown)}"
    for kind in PER_GAME:
        if kind not in usable:
            text += f"; {kind} has no {game_id} version (it plays {', '.join(games_with(kind))})"
    return text + "; zoo/NAME: the misbehaving bots of the tests."


def suggestion(name: str, game_id: str, others: Iterable[str] = ()) -> str:
    """`: did you mean greedy? ` for a near miss of a shipped name (or of `others`, a
    registry's names), else `. `: what goes between a message and names_help."""
    candidates = [*shipped_bots(game_id), *others]
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return f": did you mean {close[0]}? " if close else ". "


def _script_command(path: Path) -> list[str]:
    if path.suffix == ".py":
        return [sys.executable, str(path)]
    if path.suffix == ".js":
        node = shutil.which("node")
        if node is None:
            raise BotNameError(f"{path.name} needs node, which is not on PATH (install Node.js)")
        return [node, str(path)]
    return [str(path)]


def resolve_bot(command: str | list[str], game_id: str, folder: Path | None = None,
                base: Path | None = None, others: Iterable[str] = ()) -> BotSpec:
    """The one way a bot is named, on the command line and in league files: a shipped
    bot's short name (random, greedy, zoo/crash, btt-greedy), a command line (split like
    a shell's) or an argv list. Relative paths are taken from `folder`, where the bot
    then runs, when one is given (a league's or registry's `cwd`); else from `base`
    (default: the current folder), and the bot runs in its program's folder (see
    arena/process/botfolder.py; a shipped bot runs in its own); a Python script runs
    with this interpreter. BotNameError says why a command cannot work, and what a
    near miss of a shipped name, or of `others` (a registry's names), meant."""
    try:
        return _resolve(command, game_id, folder, base, tuple(others))
    except OSError as exc:
        shown = command if isinstance(command, str) else " ".join(command)
        raise BotNameError(f"{excerpt(shown, 200)}: {exc.strerror or exc}; check the bot's command") from None


def _resolve(command: str | list[str], game_id: str, folder: Path | None, given_base: Path | None,
             others: tuple[str, ...]) -> BotSpec:
    cwd = None if folder is None else str(folder)
    if isinstance(command, str):
        name = command.strip()
        shipped = shipped_bots(game_id)
        if name in NEEDS and importlib.util.find_spec(NEEDS[name][0]) is None:
            raise BotNameError(f"{name} needs {NEEDS[name][1]}")
        if name in shipped:
            # A shipped bot runs in its own folder: in its sandbox it sees the arena's
            # bots, never the folder the user happens to be in.
            return BotSpec(name, _script_command(shipped[name]), str(shipped[name].parent))
        if name in PER_GAME:
            raise BotNameError(f"there is no {name} bot for {game_id}. {names_help(game_id)}")
        try:
            argv = shlex.split(name)
        except ValueError as exc:
            raise BotNameError(f"cannot parse the command {excerpt(name)}: {exc}") from None
    else:
        argv = list(command)
    if not argv or not argv[0]:
        raise BotNameError(f"an empty command: give a shipped bot or a command line. {names_help(game_id)}")
    base = folder or given_base or Path.cwd()
    program = argv[0]
    if "/" in program or program.endswith(".py"):
        path = Path(program) if Path(program).is_absolute() else base / program
        if not path.exists():
            raise BotNameError(f"{excerpt(program, 200)} does not exist in {base} "
                               "(relative paths start at the bot's folder)")
        if folder is not None:
            argv[0] = str(path)
        if program.endswith(".py"):
            argv.insert(0, sys.executable)
    elif shutil.which(program) is None:
        near = suggestion(program, game_id, others) if len(argv) == 1 else ". "
        raise BotNameError(f"{excerpt(program, 200)} is not a shipped bot nor a command found on PATH{near}"
                           f"{names_help(game_id)}")
    check_command(argv, base)
    name = _display_name(argv, base)
    if folder is None:
        placed = place(argv, base)
        argv, cwd = placed.argv, None if placed.folder is None else str(placed.folder)
    return BotSpec(name, argv, cwd, named=False)


SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".pl", ".rb", ".lua", ".sh", ".php", ".jar", ".R", ".jl")
"""Arguments with these endings name a bot's script: a missing one is a mistake."""


def check_command(argv: list[str], folder: Path | None = None) -> None:
    """BotNameError for a command that cannot work before any game is played: a program
    that is a folder or is not executable, or a script argument that does not exist
    (relative paths from `folder`, default the current folder)."""
    base = folder or Path.cwd()
    program = Path(argv[0]) if "/" in argv[0] else None
    if program is not None:
        path = program if program.is_absolute() else base / program
        if path.is_dir():
            raise BotNameError(f"{excerpt(argv[0], 200)} is a folder, not a program")
        if path.exists() and not os.access(path, os.X_OK):
            raise BotNameError(f"{excerpt(argv[0], 200)} is not executable: run `chmod +x {argv[0]}`, or give its "
                               "interpreter first (e.g. \"python3 mybot.py\")")
    for arg in argv[1:]:
        if arg.startswith("-") or not arg.endswith(SCRIPT_SUFFIXES):
            continue
        path = Path(arg) if Path(arg).is_absolute() else base / arg
        if not path.exists():
            raise BotNameError(f"{excerpt(arg, 200)} does not exist (looked in {base}); check the bot's path")


def _display_name(argv: list[str], base: Path) -> str:
    """The stem of the first argument that is a file (`python3 bots/mine.py` -> mine),
    else the program's name."""
    for arg in argv[1:]:
        if (base / arg).is_file():
            return Path(arg).stem
    return Path(argv[0]).name
