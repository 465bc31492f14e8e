"""A bot opts out of the legal lists per game, once it knows the game: `legal: false`
in an action (protocol 1, optional), for the rest of that game; every game starts
again from its `ready`. Old bots are unaffected; where hello does not offer `no-legal`
the lists keep coming; `arena check` plays such a bot with the lists too. And a bot's
lines may end in CRLF."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import trio

from arena import games
from arena.process.botnames import resolve_bot
from arena.process.spec import BotSpec, Limits
from arena.referee.player import FEATURES, Timing
from arena.session.check import WITH_LISTS, Checker
from arena.timecontrol import TimeControl
from tests.helpers.botmatch import run_match

BOT = Path(__file__).parent / "newcomer_bot.py"
PLAIN = Limits(memory_bytes=512 << 20, sandbox=False)


def bot(*habit: str) -> BotSpec:
    return BotSpec(habit[0], [sys.executable, str(BOT), *habit])


def lists_per_game(tmp_path: Path, spec: BotSpec, game: str = "btt", games: int = 2,
                   features: tuple[str, ...] = FEATURES) -> tuple[list[list[bool]], list[str]]:
    """For each game, whether each request to seat 0's bot carried the legal list; and
    how every game ended."""
    result = run_match(game, [spec, resolve_bot("random", game)], TimeControl(per_move_s=2.0, basis="cpu"), games=games,
                       log_dir=tmp_path, limits=PLAIN, log_protocol=True, features=features, chance_key=b"k")
    per_game: dict[int, list[bool]] = {}
    for line in next(tmp_path.glob("0-*.protocol.log")).read_text().splitlines():  # bot 0's traffic
        head, _, text = line.partition(" > ")
        if '"type":"request"' in text:
            number = int(head.split(" game ")[1].split()[0])
            per_game.setdefault(number, []).append("legal" in json.loads(text))
    return [per_game[k] for k in sorted(per_game)], [str(o.termination) for o in result.outcomes]


def test_an_opt_out_in_an_action_holds_for_the_rest_of_its_game_only(tmp_path: Path) -> None:
    lists, ends = lists_per_game(tmp_path, bot("legal-off-in", "btt"), games=1)
    assert ends == ["normal"]
    assert lists[0][0] is True and not any(lists[0][1:]) and len(lists[0]) > 3


def test_every_game_starts_again_from_the_ready(tmp_path: Path) -> None:
    """Seat 0's bot plays both games of the match (seats swapped): the lists come again
    with the first request of the second game, then stop again."""
    result = run_match("btt", [bot("legal-off-in", "btt"), resolve_bot("random", "btt")],
                       TimeControl(per_move_s=2.0, basis="cpu"), games=2, log_dir=tmp_path, limits=PLAIN,
                       log_protocol=True, chance_key=b"k")
    assert [str(o.termination) for o in result.outcomes] == ["normal", "normal"]
    log = next(tmp_path.glob("0-*.protocol.log"))
    requests = [(line.split(" game ")[1].split()[0], '"legal":[' in line) for line in log.read_text().splitlines()
                if ' > {"type":"request"' in line]
    for game in ("1", "2"):
        mine = [has for number, has in requests if number == game]
        assert mine[0] and not any(mine[1:]), (game, mine)


def test_where_no_legal_is_not_offered_the_lists_keep_coming(tmp_path: Path) -> None:
    lists, ends = lists_per_game(tmp_path, bot("legal-off-in", "btt"), games=1, features=WITH_LISTS)
    assert ends == ["normal"] and all(lists[0])


def test_a_bot_that_never_opts_out_gets_the_lists_in_every_request(tmp_path: Path) -> None:
    lists, ends = lists_per_game(tmp_path, bot("plain"), games=1)
    assert ends == ["normal"] and all(lists[0])


def check(*habit: str) -> tuple[bool, list[str], list[str], dict[str, str]]:
    spec = bot(*habit)
    report = Checker(lambda _: spec, [games.get("btt")], TimeControl(per_move_s=2.0, basis="cpu"),
                     Timing(startup_s=30.0, grace_s=0.05), PLAIN, quick=True).run()
    failures = {c.name: c.detail for c in report.checks.values() if not c.passed}
    return report.passed, report.games, report.notes, failures


def test_arena_check_plays_a_per_game_opt_out_with_the_lists_too() -> None:
    passed, games, notes, failures = check("legal-off-in", "btt")
    assert passed, failures
    assert games == ["btt, 2 seat(s), seat 0", "btt, 2 seat(s), seat 0, per-game opt-out not granted"]
    assert any("opts out of the legal lists in its actions" in note for note in notes)


def test_arena_check_fails_a_bot_that_opts_out_and_still_needs_the_lists() -> None:
    passed, _, _, failures = check("legal-off-peek")
    assert not passed
    assert "stays-up" in failures and "btt, 2 seat(s), seat 0, game 1" in failures["stays-up"]


def test_a_bot_whose_lines_end_in_crlf_plays_normally(tmp_path: Path) -> None:
    lists, ends = lists_per_game(tmp_path, bot("crlf"), games=2)
    assert ends == ["normal", "normal"]
    passed, _, _, failures = check("crlf")
    assert passed, failures


def test_legal_true_in_an_action_takes_the_lists_back_for_the_game() -> None:
    from arena.referee.player import BotPlayer
    from protocol.messages import Ready

    player = BotPlayer(bot("plain"), None, PLAIN, Timing())
    player.ready = Ready(name="own-rules", legal=False)
    assert not player.wants_legal
    assert player.choose_legal(True) and player.wants_legal  # this game: the lists again
    assert not player.choose_legal(None) and player.wants_legal  # an action that says nothing changes nothing
    trio.run(player.new_game, 1, False)
    assert not player.wants_legal  # the next game: the ready's choice
    limited = BotPlayer(bot("plain"), None, PLAIN, Timing(), features=WITH_LISTS)
    limited.ready = Ready(name="own-rules")
    assert not limited.choose_legal(False) and limited.wants_legal  # not offered: not granted
