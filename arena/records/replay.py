"""Replaying records through the rules, and verifying them.

A record is only worth keeping if the rules reproduce it: every action legal where it
was played, every chance outcome applied at a chance decision, the turn numbers right,
and the stored result the one the final position gives. This module knows games only
through the State interface and `games.get`; one ply's step (`apply_ply`, with
`initial_state` and ReplayError) lives with the model, which `GameRecord.actors()` uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from arena.games.base import TERMINAL, State, competition_ranks
from arena.records.record import (
    GameRecord,
    Ply,
    ReplayError,
    apply_ply,
    format_places,
    format_ranks,
    format_scores,
    initial_state,
    parse_ranks,
    parse_scores,
    pgn_result,
    turn_numbers,
)
from arena.termination import Termination

__all__ = ["ReplayError", "Problem", "initial_state", "replay", "state_at", "turn_frames", "verify"]


@dataclass(frozen=True)
class Problem:
    """One way a record disagrees with the rules; `ply` is None for the game as a whole."""

    game_index: int
    ply: int | None
    message: str


def replay(record: GameRecord) -> Iterator[tuple[int, Ply | None, State]]:
    """(0, None, initial state), then (i, ply i, state after it) for each ply; every state
    yielded is a copy the caller may keep. ReplayError at the first ply that fails."""
    state = initial_state(record)
    yield 0, None, state.clone()
    for index, ply in enumerate(record.plies, 1):
        apply_ply(state, ply, index)
        yield index, ply, state.clone()


def turn_frames(record: GameRecord) -> Iterator[tuple[str, State]]:
    """(title, state) at the start and after each turn's last ply: what a person steps
    through (a turn of several plies, extra turns or power-ups, is drawn once)."""
    for index, entry, state in replay(record):
        next_ply = record.plies[index] if index < len(record.plies) else None
        if next_ply is not None and entry is not None and next_ply.turn == entry.turn:
            continue
        yield ("start" if entry is None else f"turn {entry.turn} (ply {index}): {entry.action}"), state


def state_at(record: GameRecord, ply: int) -> State:
    """The state after the first `ply` plies (0: the initial state)."""
    if not 0 <= ply <= len(record.plies):
        raise ValueError(f"ply {ply} is not in 0..{len(record.plies)}")
    state = initial_state(record)
    for index, entry in enumerate(record.plies[:ply], 1):
        apply_ply(state, entry, index)
    return state


_Report = Callable[[int | None, str], None]
"""verify's problem collector: (ply or None, message)."""


def verify(record: GameRecord, game_index: int = 0) -> list[Problem]:
    """Everything wrong with a record (empty when it is sound): illegal or misplaced
    plies, wrong turn numbers, a Plies count or result that does not match."""
    problems: list[Problem] = []

    def problem(ply: int | None, message: str) -> None:
        problems.append(Problem(game_index, ply, message))

    try:
        state = initial_state(record)
    except ReplayError as exc:
        problem(None, exc.message)
        return problems
    plies_tag = record.tags.get("Plies")
    if plies_tag is not None and not _is_count(plies_tag, len(record.plies)):
        problem(None, f"the Plies tag says {plies_tag} but the record has {len(record.plies)} plies")
    actors: list[int] = []
    try:
        for index, ply in enumerate(record.plies, 1):
            actors.append(apply_ply(state, ply, index))
    except ReplayError as exc:
        problem(exc.ply, exc.message)
    _check_turns(record.plies, actors, problem)
    if len(actors) == len(record.plies):
        _check_result(record, state, problem)
    return problems


def _is_count(text: str, count: int) -> bool:
    try:
        return int(text) == count
    except ValueError:
        return False


def _check_turns(plies: list[Ply], actors: list[int], problem: _Report) -> None:
    """Report the first ply whose turn number disagrees with the actors (later ones
    would only repeat the same shift)."""
    for index, (ply, expected) in enumerate(zip(plies, turn_numbers(actors)), 1):
        if ply.turn != expected:
            problem(index, f"turn number {ply.turn} should be {expected} "
                           "(a new turn starts exactly when the actor changes)")
            return


def _check_result(record: GameRecord, state: State, problem: _Report) -> None:
    """A normal end must be the rules' result; a forfeit only needs a sound ranking."""
    termination = record.tags.get("Termination")
    if termination is None:
        problem(None, "the record has no Termination tag")
    if termination == Termination.NORMAL:
        _check_normal_result(record, state, problem)
    else:
        _check_ranking(record, problem)
    _check_pgn_result(record, problem)


def _check_pgn_result(record: GameRecord, problem: _Report) -> None:
    """The PGN Result tag and the Places tag, where there are, say what the Ranks say."""
    result = record.tags.get("Result")
    try:
        ranks = record.ranks
    except ValueError:
        return  # said already
    if ranks is None:
        return
    if result is not None and result not in ("*", pgn_result(ranks)):
        problem(None, f"Result tag {result} does not match Ranks {record.tags['Ranks']} (it would be "
                      f"{pgn_result(ranks)})")
    places = record.tags.get("Places")
    if places is not None and places != (expected := format_places(record.players, ranks)):
        problem(None, f"Places tag {places!r} does not match the Player and Ranks tags (it would be {expected!r})")


def _check_normal_result(record: GameRecord, state: State, problem: _Report) -> None:
    if state.current() != TERMINAL:
        problem(None, f"Termination is normal but the game is not over after {len(record.plies)} plies")
        return
    result = state.result()
    checks = (
        ("Ranks", format_ranks(result.ranks), parse_ranks, result.ranks),
        ("Scores", format_scores(result.scores), parse_scores, tuple(float(s) for s in result.scores)),
    )
    for tag, expected, parse, value in checks:
        stored = record.tags.get(tag)
        if stored is None:
            problem(None, f"the record has no {tag} tag (the rules give {expected})")
            continue
        try:
            same = parse(stored) == value
        except ValueError as exc:
            problem(None, str(exc))
            continue
        if not same:
            problem(None, f"{tag} tag is {stored} but the rules give {expected}")


def _check_ranking(record: GameRecord, problem: _Report) -> None:
    """After a forfeit the referee sets the ranks; they must still rank every seat
    competition style (1, 1, 3 but not 1, 1, 2 or 0, 1)."""
    seats = record.seats
    try:
        ranks = record.ranks
        scores = record.scores
    except ValueError as exc:
        problem(None, str(exc))
        return
    if ranks is None:
        problem(None, "the record has no Ranks tag")
    elif len(ranks) != seats or ranks != competition_ranks([-rank for rank in ranks]):
        problem(None, f"Ranks tag {record.tags['Ranks']} is not a ranking of {seats} seats")
    if scores is not None and len(scores) != seats:
        problem(None, f"Scores tag {record.tags['Scores']} does not have {seats} scores")

