"""`arena games`, `arena legal` and `arena perft`: what the rules allow, without bots."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.table import Table

from arena.cli.common import arena_errors, console, errors, fail
from arena.cli.options import OptionArg, PlayersArg, SeedArg
from arena.games import GAMES, TERMINAL, GameError
from arena.games.base import CHANCE, State
from arena.games.perft import apply_actions, perft
from arena.session.setup import load_game, new_state, parse_options


def games_command() -> None:
    """List the games with their seat counts and variant options."""
    table = Table(title="Games")
    for column in ("id", "name", "seats", "chance", "hidden info"):
        table.add_column(column)
    options = Table(title="Variant options (--option NAME=VALUE)")
    for column in ("game", "option", "default", "values", "meaning"):
        options.add_column(column)
    for game in GAMES.values():
        seats = str(game.min_seats) if game.min_seats == game.max_seats else f"{game.min_seats}-{game.max_seats}"
        table.add_row(game.id, game.name, seats, "yes" if game.has_chance else "no",
                      "yes" if game.has_hidden_information else "no")
        for o in game.options:
            options.add_row(game.id, o.name, o.default or '""', ", ".join(o.choices) or "-", o.help)
    console.print(table)
    console.print(options)


DealArg = Annotated[str | None, typer.Option(
    "--deal", help="The opening chance outcome, given explicitly (The Tree: the 36 tiles in dealt order, "
    "comma-separated); default: drawn from --seed.")]


def with_deal(state: State, deal: str | None, actions: list[str] | None) -> list[str]:
    """The action list with an explicit deal first, once the game accepts that deal."""
    if deal is None:
        return list(actions or [])
    if state.current() != CHANCE:
        raise fail("--deal: this game does not open with a chance decision; drop --deal")
    try:
        state.clone().apply(deal)
    except GameError as exc:
        raise fail(f"--deal: {exc}") from None
    return [deal, *(actions or [])]


def played(game_id: str, players: int | None, option: list[str] | None, seed: int, deal: str | None,
           actions: list[str] | None) -> tuple[State, int]:
    """The state after the given actions (chance drawn from `seed`) and the ply reached;
    an illegal action exits with code 1, naming it."""
    with arena_errors():
        game = load_game(game_id)
        state = new_state(game, players, parse_options(game, option))
    try:
        return state, apply_actions(state, with_deal(state, deal, actions), seed)
    except GameError as exc:
        raise fail(str(exc), 1) from None


def legal_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id, e.g. btt.")],
    actions: Annotated[list[str] | None, typer.Argument(help="Actions played so far, one argument each.")] = None,
    players: PlayersArg = None,
    option: OptionArg = None,
    seed: SeedArg = 0,
    deal: DealArg = None,
) -> None:
    """Print the legal actions after ACTIONS, one per line in ASCII order.

    An illegal action in the list exits with code 1, naming the action and its index.
    At a chance point a listed action the game accepts is the outcome; otherwise one
    is drawn from --seed."""
    state, _ = played(game_id, players, option, seed, deal, actions)
    if state.current() == TERMINAL:
        result = state.result()
        errors.print(f"game over: ranks {list(result.ranks)}, scores {list(result.scores)}")
        return
    sys.stdout.write("".join(a + "\n" for a in state.legal_actions()))


def perft_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id, e.g. btt.")],
    depth: Annotated[int, typer.Argument(min=1, help="Deepest level to count.")],
    actions: Annotated[list[str] | None, typer.Argument(help="Actions to play first (count from there).")] = None,
    players: PlayersArg = None,
    option: OptionArg = None,
    seed: SeedArg = 0,
    deal: DealArg = None,
) -> None:
    """Print `DEPTH COUNT` for every depth 1..DEPTH: the number of legal action
    sequences of exactly that length (chance points are resolved from --seed)."""
    state, ply = played(game_id, players, option, seed, deal, actions)
    for level, count in enumerate(perft(state, depth, seed, ply), start=1):
        sys.stdout.write(f"{level} {count}\n")
