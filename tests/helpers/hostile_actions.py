"""Hostile action strings for the game contract: a bot's string is either a legal
action or an illegal one, never another exception. Hypothesis strategies (arbitrary
text, huge numbers, unicode digits, separators, near misses mutated from real legal
actions), the positions of real games they are tried at, and the verdict check."""

from __future__ import annotations

import json
import random

from hypothesis import strategies as st

from arena import games
from arena.games import CHANCE, TERMINAL, IllegalAction, State

HUGE = ["9" * 5000, "1" + "0" * 4300, "-" + "9" * 4400, "0" * 6000 + "1"]
"""Past Python's 4300-digit limit for int(): int() raises ValueError on them."""
DIGITS = ["0", "1", "7", "9", "10", "-1", "-0", "+1", "01", "64", "127", "128", "-65", "4294967296",
          "٣", "²", "①", "１", "߁", "𝟘", "1_0", "0x1", "1e3", " 1", "1 ", "\t1"]
"""Numbers that are not the canonical ASCII numbers an action holds: unicode digits
int() accepts (٣, １) and those it refuses (², ①), signs, underscores, padding."""
UNICODE_DIGITS = ["٣", "²", "①", "１", "߁", "𝟘", "३", "⁰"]
"""Characters str.isdigit() calls digits; int() reads some (٣, １, ३) and not others."""
SEPARATORS = [",", ", ", ",,", ";", "/", "//", "@", "@@", ">", ">>", " ", "  ", "\t", "\n", "\r\n", "\x00", "", "-",
              ".", ":", "|", "\u00a0", "\u2028", "，"]
EDGES = ["", " ", "pass", "PASS", "draw", "end", "leave", "roll", "roll ", "roll /", "deal", "deal ", "plant",
         "plant ", "reroll", "fast", "x", "\ufeff", "\x00", "\udcff", "é", "L", "B", "H", "V", "N", "R", "@", ",", "/"]

CHARS = st.sampled_from(list("0123456789,-@/>x ") + UNICODE_DIGITS + SEPARATORS[-3:]) | st.characters()


def positions(game_id: str, settings: list[tuple[int, dict[str, str]]]) -> list[State]:
    """A few points of a real seeded random game in each (seats, options) setting: the
    start, the first and last chance decisions when the game has them, early, middle
    and late decisions, and the end."""
    game = games.get(game_id)
    found: list[State] = []
    for seats, options in settings:
        rng = random.Random(seats)
        state = game.new_state(seats, options)
        states = [state.clone()]
        while state.current() != TERMINAL:
            current = state.current()
            state.apply(state.sample_chance(rng) if current == CHANCE else rng.choice(state.legal_actions()))
            states.append(state.clone())
        picks = {0, 1, 2, len(states) // 3, len(states) // 2, len(states) - 2, len(states) - 1}
        chance = [i for i, s in enumerate(states) if s.current() == CHANCE]
        picks.update(chance[:1] + chance[-1:])
        found.extend(states[i] for i in sorted(picks) if 0 <= i < len(states))
    return found


def listed_actions(states: list[State]) -> list[str]:
    """Actions listed somewhere in `states`: near misses start from them too (most
    are illegal at any one position, and some only just)."""
    return sorted({a for s in states for a in s.legal_actions()[:20]})


@st.composite
def near_miss(draw: st.DrawFn, actions: list[str]) -> str:
    """A real legal action with one to three slips: a character dropped, doubled,
    changed or added; a number swapped for a huge, unicode or non-canonical one; a
    separator swapped or added; a case change; pieces joined."""
    text = draw(st.sampled_from(actions))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(text)))
        slip = draw(st.integers(0, 8))
        if slip == 0:
            text = text[:where] + text[where + 1:]
        elif slip == 1:
            text = text[:where] + text[where:where + 1] * 2 + text[where + 1:]
        elif slip == 2:
            text = text[:where] + draw(CHARS) + text[where + 1:]
        elif slip == 3:
            text = text[:where] + draw(CHARS) + text[where:]
        elif slip == 4:
            text = _swap_number(text, draw(st.sampled_from(HUGE + DIGITS)), draw(st.integers(0, 7)))
        elif slip == 5:
            text = text[:where] + draw(st.sampled_from(SEPARATORS)) + text[where:]
        elif slip == 6:
            text = text.swapcase() if draw(st.booleans()) else text.upper()
        elif slip == 7:
            text = text + draw(st.sampled_from(SEPARATORS)) + draw(st.sampled_from(actions))
        else:
            text = draw(st.sampled_from(SEPARATORS)).join(text.split(draw(st.sampled_from(SEPARATORS[:6])) or ","))
    return text


@st.composite
def renumbered(draw: st.DrawFn, actions: list[str]) -> str:
    """A real legal action with some of its numbers swapped for hostile ones."""
    text = draw(st.sampled_from(actions))
    for _ in range(draw(st.integers(1, 2))):
        if draw(st.booleans()):
            text = _swap_number(text, draw(st.sampled_from(HUGE + DIGITS)), draw(st.integers(0, 5)))
        else:
            text = _swap_digit(text, draw(st.sampled_from(UNICODE_DIGITS)), draw(st.integers(0, 7)))
    return text


def _swap_digit(text: str, digit: str, which: int) -> str:
    """`text` with its `which`-th ASCII digit (counted modulo the digits) replaced."""
    places = [i for i, c in enumerate(text) if c in "0123456789"]
    if not places:
        return text + digit
    i = places[which % len(places)]
    return text[:i] + digit + text[i + 1:]


def _swap_number(text: str, number: str, which: int) -> str:
    """`text` with its `which`-th run of ASCII digits (counted modulo the runs) replaced."""
    runs: list[tuple[int, int]] = []
    start = -1
    for i, c in enumerate(text + " "):
        if c in "0123456789" and start < 0:
            start = i
        elif c not in "0123456789" and start >= 0:
            runs.append((start, i))
            start = -1
    if not runs:
        return text + number
    a, b = runs[which % len(runs)]
    return text[:a] + number + text[b:]


def hostile_strings(actions: list[str], elsewhere: list[str]) -> st.SearchStrategy[str]:
    """Strings for a position whose legal and nearby actions are `actions`;
    `elsewhere` holds real actions of every game."""
    numbers = st.sampled_from(HUGE + DIGITS)
    built = st.lists(numbers | st.sampled_from(SEPARATORS + EDGES), min_size=1, max_size=8).map("".join)
    prefixed = st.tuples(st.sampled_from(EDGES + [a[:1] for a in actions]), st.lists(
        numbers, min_size=1, max_size=4), st.sampled_from(SEPARATORS)).map(lambda t: t[0] + t[2].join(t[1]))
    strategies = [st.text(max_size=40), built, prefixed, st.sampled_from(EDGES)]
    if elsewhere:
        strategies.append(st.sampled_from(elsewhere))
    if actions:
        strategies += [near_miss(actions), near_miss(actions), renumbered(actions), renumbered(actions),
                       renumbered(actions)]
    return st.one_of(strategies)


def renumbered_strings(actions: list[str]) -> set[str]:
    """Every hostile number in place of each of the first four numbers of each action,
    and every unicode digit in place of each of its first four digits."""
    strings: set[str] = set()
    for action in actions:
        for which in range(4):
            strings.update(_swap_number(action, number, which) for number in HUGE + DIGITS)
            strings.update(_swap_digit(action, digit, which) for digit in UNICODE_DIGITS)
    return strings


def snapshot(state: State) -> str:
    """Everything the interface shows of a state, as text (so that nothing in it is
    shared with the state)."""
    current = state.current()
    legal = state.legal_actions() if current >= 0 else []
    return json.dumps([current, legal, [state.observation(s) for s in range(state.num_seats)]], sort_keys=True)


def check_verdict(state: State, action: str, before: str | None = None) -> None:
    """`action` is legal or illegal at `state`, never an error: is_legal says a bool that
    agrees with the list, apply plays it or raises IllegalAction and leaves the state as
    it was, and every seat's view of it is a string or None. `before` is the state's
    snapshot when the caller has it."""
    current = state.current()
    listed = set(state.legal_actions()) if current >= 0 else set()
    verdict = state.is_legal(action)
    assert isinstance(verdict, bool)
    if current >= 0:
        assert verdict == (action in listed), (action, verdict)
    else:
        assert not verdict, "nothing is a seat's legal action at chance or at the end"
    for seat in range(state.num_seats):
        seen = state.visible_action(action, current if current != TERMINAL else 0, seat)
        assert seen is None or isinstance(seen, str)
    before = before or snapshot(state)
    trial = state.clone()
    try:
        trial.apply(action)
    except IllegalAction:
        assert action not in listed, f"{action!r} is listed but refused"
        assert snapshot(trial) == before, "a refused action changed the state"
        return
    assert current != TERMINAL, "nothing is played once the game is over"
    assert current == CHANCE or action in listed, f"{action!r} was played but is not listed"
