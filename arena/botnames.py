"""Turn what the user typed for a bot into a BotSpec: a shipped bot's short name or a
command line. Python bots run with this interpreter (sys.executable): a version-manager
shim on PATH can add 100 ms to every start."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

from arena.process import BotSpec

BOTS_DIR = Path(__file__).resolve().parent.parent / "bots"

SHIPPED: dict[str, str] = {
    "random": "random_bot.py",
    "random-js": "random_bot.js",
}
"""Short names usable in every game; `greedy`, `search`... resolve per game below."""

PER_GAME = ("greedy", "search")
"""Short names resolved to bots/<game>_<name>.py for the game being played."""


class BotNameError(ValueError):
    """A bot the user named cannot be started."""


def shipped_names(game_id: str | None = None) -> list[str]:
    """Short names available (for help texts and errors)."""
    names = list(SHIPPED)
    for kind in PER_GAME:
        for path in sorted(BOTS_DIR.glob(f"*_{kind}.py")):
            game = path.stem[: -len(kind) - 1].replace("_", "-")
            if game_id is None or game == game_id:
                names.append(kind if game_id else f"{game}-{kind}")
    names += [f"zoo/{p.stem}" for p in sorted((BOTS_DIR / "zoo").glob("[a-z]*.py"))]
    return names


def _script_command(path: Path) -> list[str]:
    if path.suffix == ".py":
        return [sys.executable, str(path)]
    if path.suffix == ".js":
        node = shutil.which("node")
        if node is None:
            raise BotNameError(f"{path.name} needs node, which is not on PATH (install Node.js)")
        return [node, str(path)]
    return [str(path)]


def resolve_bot(text: str, game_id: str) -> BotSpec:
    """A BotSpec for a short name (random, greedy, zoo/crash, btt-greedy) or a command."""
    name = text.strip()
    if not name:
        raise BotNameError("an empty bot name: give a shipped bot's name or a command line")
    script: str | None = SHIPPED.get(name)
    if script is None and name in PER_GAME:
        script = f"{game_id.replace('-', '_')}_{name}.py"
        if not (BOTS_DIR / script).exists():
            raise BotNameError(f"there is no {name} bot for {game_id} (shipped: {', '.join(shipped_names(game_id))})")
    if script is None and name.startswith("zoo/"):
        script = f"zoo/{name[4:]}.py"
    if script is None:
        for kind in PER_GAME:
            if name.endswith(f"-{kind}") and (BOTS_DIR / f"{name[: -len(kind) - 1].replace('-', '_')}_{kind}.py").exists():
                script = f"{name[: -len(kind) - 1].replace('-', '_')}_{kind}.py"
    if script is not None:
        path = BOTS_DIR / script
        if not path.exists():
            raise BotNameError(f"no shipped bot {name!r} (shipped: {', '.join(shipped_names(game_id))})")
        return BotSpec(name, _script_command(path))
    try:
        argv = shlex.split(name)
    except ValueError as exc:
        raise BotNameError(f"cannot parse the command {name!r}: {exc}") from None
    program = argv[0]
    if argv[0].endswith(".py") and Path(argv[0]).exists():
        argv = [sys.executable, *argv]
    elif shutil.which(program) is None and not Path(program).exists():
        raise BotNameError(
            f"{program!r} is neither a shipped bot ({', '.join(shipped_names(game_id))}) "
            "nor a command found on PATH"
        )
    return BotSpec(Path(program).name if len(argv) == 1 else Path(argv[-1]).stem, argv)
