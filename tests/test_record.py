"""Records: the text format (round trip, errors), replaying and verifying, appending."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from arena import records
from arena.games import GAMES
from arena.games.base import CHANCE, TERMINAL, Game, IllegalAction, Option, Result, State, competition_ranks
from arena.records.files import append, read_record_file
from arena.records.reader import read_text
from arena.records.record import (
    GameRecord,
    Ply,
    RecordSyntaxError,
    format_ranks,
    format_scores,
    parse_scores,
    turn_numbers,
)
from arena.records.replay import Problem, ReplayError, replay, state_at, verify
from arena.records.writer import LINE_WIDTH, write_all

# ---- a tiny game with multi-decision turns and chance -----------------------------------


class CountState(State):
    """Count: on its turn a seat adds 1 or 2 to its score once or twice ("stop" ends the
    turn after one add); then chance adds a bonus of 0 or 1. The first seat to reach the
    target after a bonus ends the game; ranks follow the scores."""

    def __init__(self, num_seats: int, options: Mapping[str, str]) -> None:
        super().__init__(num_seats, options)
        self.target = int(options["target"])
        self.points = [0] * num_seats
        self.seat = 0
        self.adds = 0
        self.bonus_due = False
        self.over = False

    def current(self) -> int:
        return TERMINAL if self.over else CHANCE if self.bonus_due else self.seat

    def legal_actions(self) -> list[str]:
        if self.over or self.bonus_due:
            return []
        return ["add 1", "add 2"] + (["stop"] if self.adds else [])

    def apply(self, action: str) -> None:
        if self.bonus_due and action in ("bonus 0", "bonus 1"):
            self._bonus(int(action[-1]))
        elif action not in self.legal_actions():
            raise IllegalAction(action)
        elif action == "stop":
            self.bonus_due = True
        else:
            self.points[self.seat] += int(action[-1])
            self.adds += 1
            self.bonus_due = self.adds == 2

    def _bonus(self, points: int) -> None:
        self.points[self.seat] += points
        self.bonus_due = False
        self.over = self.points[self.seat] >= self.target
        self.seat = (self.seat + 1) % self.num_seats
        self.adds = 0

    def sample_chance(self, rng: random.Random) -> str:
        return rng.choice(["bonus 0", "bonus 1"])

    def clone(self) -> CountState:
        twin = CountState(self.num_seats, self.options)
        twin.points = list(self.points)
        twin.seat, twin.adds, twin.bonus_due, twin.over = self.seat, self.adds, self.bonus_due, self.over
        return twin

    def result(self) -> Result:
        return Result(competition_ranks([float(p) for p in self.points]), tuple(float(p) for p in self.points))

    def observation(self, seat: int) -> dict[str, Any]:
        return {"points": self.points}


class CountGame(Game):
    id = "count"
    name = "Count"
    min_seats = 1
    max_seats = 3
    options = (Option("target", "6", "points that end the game"),)
    has_chance = True

    def _initial_state(self, seats: int, options: dict[str, str]) -> State:
        return CountState(seats, options)


@pytest.fixture(autouse=True)
def count_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GAMES, "count", CountGame())


def play_count(seed: int, seats: int = 2, comments: bool = True) -> GameRecord:
    """A complete, correct record of a random game of Count, as the referee would write it."""
    rng = random.Random(seed)
    state = CountGame().new_state(seats)
    actors: list[int] = []
    actions: list[str] = []
    while state.current() != TERMINAL:
        actor = state.current()
        actions.append(state.sample_chance(rng) if actor == CHANCE else rng.choice(state.legal_actions()))
        actors.append(actor)
        state.apply(actions[-1])
    plies = [
        Ply(turn, action, actor == CHANCE, f"{rng.randint(1, 99)}ms" if comments and actor != CHANCE else None)
        for turn, action, actor in zip(turn_numbers(actors), actions, actors)
    ]
    result = state.result()
    tags = {"Event": "test", "Game": "count", "Options": "target=6", "Seats": str(seats)}
    tags.update({f"Player{seat}": f"bot{seat}" for seat in range(seats)})
    tags.update(Seed=str(seed), Ranks=format_ranks(result.ranks), Scores=format_scores(result.scores),
                Termination="normal", Plies=str(len(plies)))
    return GameRecord(tags, plies)


# ---- the text format ----------------------------------------------------------------------

TWO_GAMES = """\
[Event "club night \\"spring\\""]
[Date "2025.03.01"]
[Round "1"]
[Game "count"]
[Options "target=6"]
[Seats "2"]
[Player0 "greedy"]
[Player1 "random"]
[Seed "7"]
[TimeControl "2s/move"]
[Ranks "1,2"]
[Scores "7,4"]
[Termination "normal"]
[Plies "6"]
[Opening "C:\\\\games"]

1. "add 2" {12ms score=0.31} "add 2" {3ms} 2. ~"bonus 1" 3. "add 1" {40ms} stop
4. ~"bonus 0" 5. "say \\"hi\\""
{a comment long enough to need a line of its own, as it cannot share one with its action}

[Game "count"]
[Seats "1"]
[Termination "time-out"]

"""


def test_reading_then_writing_is_byte_identical() -> None:
    games = read_text(TWO_GAMES)
    assert write_all(games) == TWO_GAMES
    first, second = games
    assert list(first.tags)[:3] == ["Event", "Date", "Round"]
    assert first.tags["Event"] == 'club night "spring"'
    assert first.tags["Opening"] == "C:\\games"
    assert first.plies[:3] == [Ply(1, "add 2", False, "12ms score=0.31"), Ply(1, "add 2", False, "3ms"),
                               Ply(2, "bonus 1", True)]
    comment = "a comment long enough to need a line of its own, as it cannot share one with its action"
    assert first.plies[-1] == Ply(5, 'say "hi"', False, comment)
    assert second.plies == [] and second.termination == "time-out"


def test_records_survive_write_and_read_unchanged() -> None:
    games = [play_count(seed, seats) for seed, seats in ((1, 2), (2, 3), (3, 1))]
    text = write_all(games)
    assert read_text(text) == games
    assert write_all(read_text(text)) == text


@pytest.mark.parametrize("action", [
    "", "~x", "[a", ";b", "12.", "3.5", 'say "hi"', "back\\slash", "tab\there", "{x}", "a}b",
    "\u00fcn\u00efcode", "new\nline", "nbsp\u00a0x", "roll 1,2,3,3,5/6", "a~b", "12", "-1.",
])
def test_any_action_reads_back_as_written(action: str) -> None:
    game = GameRecord({"Game": "g", "Seats": "1"}, [Ply(1, action), Ply(2, action, chance=True, comment="c")])
    text = records.write(game)
    assert read_text(text) == [game]
    assert all("\n" not in line for line in text.splitlines())


def test_plain_actions_stay_unquoted_and_awkward_ones_are_quoted() -> None:
    game = GameRecord({"Game": "g", "Seats": "1"}, [Ply(1, "a1-b2"), Ply(1, "3.5"), Ply(2, "x y", chance=True)])
    assert records.write(game).endswith('\n\n1. a1-b2 "3.5" 2. ~"x y"\n')


def test_comments_lose_closing_braces_and_line_breaks() -> None:
    game = GameRecord({"Game": "g", "Seats": "1"}, [Ply(1, "a", comment="x}y\nz")])
    assert read_text(records.write(game))[0].plies[0].comment == "x)y z"


def test_move_text_wraps_at_token_boundaries() -> None:
    plies = [Ply(1 + i // 3, f"action-{i}", comment="7ms") for i in range(200)] + [Ply(100, "end", comment="x" * 90)]
    text = records.write(GameRecord({"Game": "g", "Seats": "1"}, plies))
    move_lines = text.split("\n\n", 1)[1].splitlines()
    assert len(move_lines) > 10
    assert all(len(line) <= LINE_WIDTH for line in move_lines[:-1])
    assert move_lines[-1] == "{" + "x" * 90 + "}"  # a token longer than a line gets a line of its own
    assert not any(line.endswith(".") for line in move_lines)  # a turn number stays with its action
    assert all(line.endswith("}") for line in move_lines[:-2])  # and an action with its comment
    assert read_text(text)[0].plies == plies


def test_tags_are_written_in_standard_order_then_insertion_order() -> None:
    tags = {"Zeta": "z", "Plies": "0", "Player10": "k", "Player2": "c", "Seats": "11", "Game": "g",
            "Alpha": "a", "Event": "e", "Player01": "odd"}
    names = [line.split()[0][1:] for line in records.write(GameRecord(tags, [])).splitlines() if line]
    assert names == ["Event", "Game", "Seats", "Player2", "Player10", "Plies", "Zeta", "Alpha", "Player01"]


def test_bom_and_crlf_are_accepted() -> None:
    crlf = "\ufeff" + TWO_GAMES.replace("\n", "\r\n")
    assert read_text(crlf) == read_text(TWO_GAMES)
    assert read_text("") == [] and read_text("\n \n") == []


def test_the_writer_refuses_records_it_could_not_read_back() -> None:
    with pytest.raises(ValueError, match="Seats"):
        records.write(GameRecord({"Game": "g"}, []))
    with pytest.raises(ValueError, match="turn number 1 after turn 2"):
        records.write(GameRecord({"Game": "g", "Seats": "1"}, [Ply(2, "a"), Ply(1, "b")]))
    with pytest.raises(ValueError, match="tag name"):
        records.write(GameRecord({"Game": "g", "Seats": "1", "bad name": "x"}, []))
    with pytest.raises(ValueError, match="Ranks"):
        records.write(GameRecord({"Game": "g", "Seats": "1", "Ranks": "first"}, []))


HEAD = '[Game "count"]\n[Seats "2"]\n\n'


@pytest.mark.parametrize(("text", "line", "column", "message"), [
    (HEAD + '1. "add 1\n', 4, 4, "unterminated quoted action"),
    ('[Game "count]\n', 1, 7, "unterminated quoted tag value"),
    ("[Game count]\n", 1, 1, "bad tag line"),
    ('[Game "count"] x\n', 1, 16, "text after the ']'"),
    ('[Game "count"  x]\n', 1, 16, "expected ']'"),
    (HEAD + "1. a 2. b\n3. c 2. d\n", 5, 6, "turn number 2 after turn 3"),
    (HEAD + "1. a\n0. b\n", 5, 1, "turn number 0 after turn 1"),
    ('[Event "x"]\n[Seats "2"]\n\n1. a\n', 1, 1, "no Game tag"),
    ('[Event "x"]\n[Game "g"]\n', 1, 1, "no Seats tag"),
    ("1. a\n", 1, 1, "move text before any tag"),
    (HEAD + "1. {early} a\n", 4, 4, "comment must directly follow an action"),
    (HEAD + "1. a {one} {two}\n", 4, 12, "comment must directly follow an action"),
    (HEAD + "1. a {open\n", 4, 6, "unterminated comment"),
    (HEAD + "1. a }\n", 4, 6, "'}' without a '{'"),
    (HEAD + "1. a ~ b\n", 4, 6, "'~' must be followed"),
    (HEAD + '1. "a\\qb"\n', 4, 6, "unknown escape '\\q'"),
    (HEAD + "1. ;a\n", 4, 4, "must be quoted"),
    (HEAD + "1. ~3.5\n", 4, 5, "looks like a turn number"),
    (HEAD + "1. a 2.\n", 4, 6, "turn 2 has no actions"),
    (HEAD + "1. 2. a\n", 4, 1, "turn 1 has no actions"),
    (HEAD + "a 1. b\n", 4, 1, "must start with a turn number"),
    (HEAD + "1" * 5000 + ". a\n", 4, 1, "too large"),
    ('[Game "count"]\n[Game "count"]\n', 2, 1, "duplicate tag Game (first on line 1)"),
    ('[Game "count"]\n[Seats "two"]\n', 2, 1, "Seats must be a positive whole number"),
    ('[Game "count"]\n[Seats "2"]\n[Ranks "1,x"]\n', 3, 1, "bad Ranks tag"),
    ('[Game "count"]\n[Seats "2"]\n[Options "fast"]\n', 3, 1, "bad Options tag"),
    (TWO_GAMES + '\n[Game "count"]\n[Seats "1"]\n\n1. a\n2. "b\n', 30, 4, "unterminated quoted action"),
])
def test_reader_errors_name_the_line_and_the_problem(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(RecordSyntaxError) as caught:
        read_text(text)
    assert (caught.value.line, caught.value.column) == (line, column), caught.value
    assert message in caught.value.message
    assert str(caught.value).startswith(f"line {line}, column {column}: ")


def test_reader_raises_only_syntax_errors_on_mangled_text() -> None:
    rng = random.Random(5)
    source = write_all([play_count(1), play_count(2, 3)]) + TWO_GAMES
    alphabet = '"\\{}[]~;.1 \n\r\tx\u00e9'
    for _ in range(400):
        chars = list(source)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(chars))
            choice = rng.random()
            if choice < 0.4:
                chars[pos] = rng.choice(alphabet)
            elif choice < 0.7:
                del chars[pos]
            else:
                chars.insert(pos, rng.choice(alphabet))
        text = "".join(chars)
        try:
            games = read_text(text)
        except RecordSyntaxError as exc:
            assert exc.line >= 1 and exc.column >= 1
            continue
        for game in games:  # whatever reads also writes, and reads back equal
            assert read_text(records.write(game)) == [game]
            game.seats, game.options, game.ranks, game.scores  # noqa: B018 - the properties never fail


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.pgn"
    path.write_text(HEAD + "1. a\n2. {x}\n")
    with pytest.raises(RecordSyntaxError, match=r"bad\.pgn: line 5, column 4: a comment must"):
        read_record_file(path)
    path.write_bytes(HEAD.encode() + b"1. caf\xe9\n")
    with pytest.raises(RecordSyntaxError, match=r"bad\.pgn: line 4, column 7: not UTF-8"):
        read_record_file(path)
    with pytest.raises(FileNotFoundError):
        read_record_file(tmp_path / "missing.pgn")


# ---- helpers and properties ---------------------------------------------------------------


def test_turn_numbers_start_a_turn_whenever_the_actor_changes() -> None:
    assert turn_numbers([]) == []
    assert turn_numbers([0, 0, CHANCE, 1, 1, 0, CHANCE, CHANCE]) == [1, 1, 2, 3, 3, 4, 5, 5]


def test_ranks_and_scores_are_formatted_like_for_like() -> None:
    assert format_ranks((1, 2, 2)) == "1,2,2"
    assert format_scores((4.0, 6.0, -0.0)) == "4,6,0"
    assert format_scores((0.5, 2, 1e20)) == "0.5,2,1e+20"
    assert parse_scores(format_scores((0.1, 3.25))) == (0.1, 3.25)


def test_record_properties_parse_the_tags() -> None:
    game = read_text(TWO_GAMES)[0]
    assert (game.game_id, game.seats, game.options) == ("count", 2, {"target": "6"})
    assert (game.players, game.ranks, game.scores, game.termination) == (
        ["greedy", "random"], (1, 2), (7.0, 4.0), "normal")
    bare = GameRecord({"Game": "count", "Seats": "2"})
    assert (bare.options, bare.players, bare.ranks, bare.scores) == ({}, ["?", "?"], None, None)


# ---- replay and verify ---------------------------------------------------------------------


def test_a_correct_record_verifies_and_replays_every_state() -> None:
    for seed in range(20):
        record = play_count(seed, 1 + seed % 3)
        assert verify(record) == [], seed
    record = read_text(records.write(play_count(3)))[0]
    steps = list(replay(record))
    assert [index for index, _, _ in steps] == list(range(len(record.plies) + 1))
    assert steps[0][1] is None and steps[-1][2].current() == TERMINAL
    assert [ply for _, ply, _ in steps[1:]] == record.plies
    middle = len(record.plies) // 2
    assert state_at(record, middle).observation(0) == steps[middle][2].observation(0)  # kept copies
    with pytest.raises(ValueError):
        state_at(record, len(record.plies) + 1)


def seat_ply_index(record: GameRecord, nth: int = 1) -> int:
    """0-based index of the nth seat (non-chance) ply after the first."""
    return [i for i, ply in enumerate(record.plies) if not ply.chance][nth]


def test_an_illegal_action_is_reported_with_its_ply() -> None:
    record = play_count(4)
    index = seat_ply_index(record)
    record.plies[index].action = "add 3"
    assert verify(record, 5) == [Problem(5, index + 1, "illegal action 'add 3': not a legal action here")]
    with pytest.raises(ReplayError) as caught:
        list(replay(record))
    assert caught.value.ply == index + 1
    with pytest.raises(ReplayError):
        state_at(record, len(record.plies))


def test_chance_and_seat_plies_must_sit_at_the_right_decisions() -> None:
    record = play_count(4)
    chance = next(i for i, ply in enumerate(record.plies) if ply.chance)
    record.plies[chance].chance = False
    problems = verify(record)
    assert problems[0].ply == chance + 1 and "chance outcome is due" in problems[0].message
    record = play_count(4)
    record.plies[0].chance = True
    problems = verify(record)
    assert problems[0].ply == 1 and "where seat 0 is to decide" in problems[0].message


def test_a_wrong_result_is_reported() -> None:
    record = play_count(3)
    ranks, scores = record.tags["Ranks"], record.tags["Scores"]
    assert ranks == "2,1"
    record.tags.update(Ranks="1,2", Scores="99,0")
    assert [p.message for p in verify(record)] == [
        f"Ranks tag is 1,2 but the rules give {ranks}", f"Scores tag is 99,0 but the rules give {scores}"]


def test_equal_scores_in_another_spelling_are_accepted() -> None:
    record = play_count(6)
    record.tags["Scores"] = ",".join(f"{s}.0" for s in record.tags["Scores"].split(","))
    assert verify(record) == []


def test_a_wrong_turn_number_is_reported() -> None:
    record = play_count(7)
    index = seat_ply_index(record, 2)
    for ply in record.plies[index:]:
        ply.turn += 1
    problems = verify(record)
    assert [(p.ply, p.message.split(" (")[0]) for p in problems] == [
        (index + 1, f"turn number {record.plies[index].turn} should be {record.plies[index].turn - 1}")]


def test_plies_count_and_unfinished_normal_games_are_reported() -> None:
    record = play_count(8)
    record.plies.pop()
    messages = [p.message for p in verify(record)]
    assert any("Plies tag says" in m for m in messages)
    assert any("not over" in m for m in messages)


def test_a_ply_after_the_end_is_reported() -> None:
    record = play_count(8)
    record.plies.append(Ply(record.plies[-1].turn + 1, "add 1"))
    record.tags["Plies"] = str(len(record.plies))
    assert [(p.ply, "after the game is over" in p.message) for p in verify(record)] == [(len(record.plies), True)]


def test_a_forfeit_needs_legal_plies_and_a_sound_ranking_only() -> None:
    record = play_count(9, 3)
    del record.plies[5:]
    record.tags.update(Termination="time-out", Ranks="1,1,3", Plies="5")
    del record.tags["Scores"]
    assert verify(record) == []
    for bad in ("1,2", "1,1,2", "0,1,2", "1,2,4"):
        record.tags["Ranks"] = bad
        assert [p.message for p in verify(record)] == [f"Ranks tag {bad} is not a ranking of 3 seats"]


def test_a_record_that_cannot_be_set_up_is_one_problem() -> None:
    record = play_count(1)
    record.tags["Game"] = "no-such-game"
    [problem] = verify(record, 2)
    assert problem.game_index == 2 and problem.ply is None and "unknown game" in problem.message
    record = play_count(1)
    record.tags["Options"] = "speed=fast"
    assert "no option 'speed'" in verify(record)[0].message


# ---- appending --------------------------------------------------------------------------------


def test_append_record_builds_a_file_of_all_games(tmp_path: Path) -> None:
    path = tmp_path / "league" / "games.pgn"
    path.parent.mkdir()
    games = [play_count(seed, 1 + seed % 3) for seed in range(5)]
    for game in games:
        append(path, game)
    assert path.read_text() == write_all(games)
    assert read_record_file(path) == games


def test_append_after_a_torn_last_line_starts_a_fresh_line(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    path.write_text(records.write(play_count(1))[:-1])  # the final newline never reached the disk
    append(path, play_count(2))
    assert read_record_file(path) == [play_count(1), play_count(2)]


# ---- the real game ------------------------------------------------------------------------------


def btt_records() -> Iterator[GameRecord]:
    """Two random games of btt: an arena game the record must carry, so a btt that is
    missing or renamed fails here (a KeyError), never skips."""
    game = GAMES["btt"]
    for seed, seats in ((1, 2), (2, 4)):
        rng = random.Random(seed)
        state = game.new_state(seats)
        actors, actions = [], []
        while state.current() != TERMINAL:
            actors.append(state.current())
            actions.append(rng.choice(state.legal_actions()))
            state.apply(actions[-1])
        result = state.result()
        plies = [Ply(t, a, comment="1ms") for t, a in zip(turn_numbers(actors), actions)]
        yield GameRecord({"Game": "btt", "Seats": str(seats), "Ranks": format_ranks(result.ranks),
                          "Scores": format_scores(result.scores), "Termination": "normal",
                          "Plies": str(len(plies))}, plies)


def test_btt_records_round_trip_and_verify() -> None:
    games = list(btt_records())
    text = write_all(games)
    assert read_text(text) == games and write_all(read_text(text)) == text
    assert [verify(game, i) for i, game in enumerate(games)] == [[], []]


def test_the_documented_example_round_trips_and_its_btt_game_verifies() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "records.md").read_text()
    example = doc.split("```\n", 2)[1]
    games = read_text(example)
    assert write_all(games) == example
    assert [g.game_id for g in games] == ["btt", "roots"]
    assert games[1].plies[2] == Ply(3, "roll 2,2,2,2,4,5/", chance=True)
    assert [verify(game) for game in games] == [[], []]


def _append_many(path: str, writer: int, count: int) -> None:
    from arena.records.files import append
    from arena.records.record import GameRecord as Record
    from arena.records.record import Ply as P

    for k in range(count):
        append(path, Record({"Game": "btt", "Seats": "2", "Round": f"{writer}.{k}"},
                            [P(1, "Nc3"), P(2, "Rd2", comment="x" * (k * 37 % 3000))]))


def test_two_processes_appending_to_one_file_lose_and_tear_nothing(tmp_path: Path) -> None:
    import multiprocessing

    path = tmp_path / "shared.pgn"
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_append_many, args=(str(path), w, 40)) for w in range(2)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
        assert writer.exitcode == 0
    games = read_record_file(path)
    assert sorted(g.tags["Round"] for g in games) == sorted(f"{w}.{k}" for w in range(2) for k in range(40))
    assert all(len(g.plies) == 2 for g in games)
