"""The Tree's information states through OpenSpiel (arena/rl/infostate.py): a resampled
state has a whole history the seat cannot tell from the real one (same information
state string and observation, every action legal again, pickles and serialises) with
the unseen tiles drawn at random; the information state tensor holds what the seat
recalls and never rules out what is true."""

from __future__ import annotations

import pickle
import random
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel", reason="needs the rl extra: pip install -e '.[rl]'")

import arena.rl.openspiel  # noqa: E402, F401  (registers the arena_* games)
from arena.games.the_tree import TheTreeState  # noqa: E402
from arena.games.the_tree_tiles import TILE_BY_NAME, TILES, start_key, tile_name  # noqa: E402
from arena.rl import infostate  # noqa: E402
from arena.rl.spec import RLError  # noqa: E402


def played(players: int, seed: int, plies: int) -> Any:
    """A game of The Tree played at random from the start for `plies` ids (the deal's
    36 included), or to its end."""
    game = pyspiel.load_game(f"arena_the_tree(players={players})")
    state = game.new_initial_state()
    rng = random.Random(seed)
    while not state.is_terminal() and len(state.history()) < plies:
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def hidden(state: Any, seat: int) -> tuple[tuple[str, ...], ...]:
    """What `seat` may not see: the other hands and the supply in order."""
    tree = state.position.state
    others = tuple(tuple(sorted(tile_name(t) for t in tree.hands[s])) for s in range(tree.num_seats) if s != seat)
    return others + (tuple(tile_name(t) for t in tree.supply),)


def assert_indistinguishable(state: Any, seat: int, seed: int) -> Any:
    game = state.get_game()
    twin = state.resample_from_infostate(seat, seed)
    assert twin.information_state_string(seat) == state.information_state_string(seat)
    assert twin.observation_string(seat) == state.observation_string(seat)
    assert np.array_equal(twin.observation_tensor(seat), state.observation_tensor(seat))
    assert np.array_equal(twin.information_state_tensor(seat), state.information_state_tensor(seat))
    assert twin.current_player() == state.current_player()
    if state.current_player() == seat:
        assert twin.legal_actions() == state.legal_actions()
    assert len(twin.history()) == len(state.history())
    replayed = game.new_initial_state()
    for action in twin.history():
        replayed.apply_action(action)
    assert str(replayed) == str(twin)
    again = pickle.loads(pickle.dumps(twin))
    assert again.history() == twin.history() and str(again) == str(twin)
    _, restored = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, twin))
    assert restored.information_state_string(seat) == state.information_state_string(seat)
    assert restored.history() == twin.history()
    assert twin.clone().history() == twin.history()
    return twin


@settings(max_examples=25, deadline=None)
@given(players=st.integers(1, 4), seed=st.integers(0, 10_000), plies=st.integers(36, 140))
def test_a_resampled_state_is_one_the_seat_cannot_tell_apart(players: int, seed: int, plies: int) -> None:
    state = played(players, seed, plies)
    for seat in range(players):
        assert_indistinguishable(state, seat, seed)


def test_resampling_keeps_every_recorded_action_legal_at_every_point_of_many_games() -> None:
    """Every draw and pass of another seat must stay legal (no placement for its
    hand), every placement's tile in its placer's hand: the engine replays each
    resampled history and refuses any illegal action."""
    others_blocked = 0
    for seed in range(16):
        players = 2 + seed % 3
        rng = random.Random(seed)
        state = played(players, seed, rng.randrange(60, 150))
        for seat in range(players):
            assert_indistinguishable(state, seat, rng.randrange(1 << 20))
            others_blocked += sum(1 for part in state.information_state_string(seat).split(" | ")
                                  if part in ("draw", "pass"))
    assert others_blocked > 60  # the histories did test the rule for draws and passes


def test_the_unseen_tiles_differ_across_seeds_and_repeat_for_one() -> None:
    state = played(2, 4, 60)
    for seat in range(2):
        views = {hidden(state.resample_from_infostate(seat, seed), seat) for seed in range(8)}
        assert len(views) >= 6
        first = state.resample_from_infostate(seat, 3)
        assert first.history() == state.resample_from_infostate(seat, 3).history()


def test_a_tile_another_seat_placed_was_dealt_to_it_or_drawn_by_it_before() -> None:
    state = played(3, 11, 120)
    for seed in range(6):
        twin = state.resample_from_infostate(0, seed)
        actions = infostate.actions_from_start(twin.position.log)
        deal = [TILE_BY_NAME[name] for name in actions[0].split(",")]
        hands = [set(deal[s * 9:(s + 1) * 9]) for s in range(3)]
        supply = deal[27:]
        tree = TheTreeState(3)
        for action in actions:
            actor = tree.current()
            if action == "draw":
                hands[actor].add(supply.pop(0))
            elif "@" in action:
                tile = TILE_BY_NAME["".join(sorted(action[:2]))]
                assert tile in hands[actor]
                hands[actor].remove(tile)
            tree.apply(action)
        assert [set(h) for h in tree.hands] == hands


def test_right_after_the_deal_the_unseen_tiles_are_spread_as_the_shuffle_would() -> None:
    state = played(2, 6, 36)
    seat = state.current_player()  # the starter: no tile below its lowest was dealt
    actions = tuple(infostate.actions_from_start(state.position.log))
    know = infostate.read(actions, 2, seat)
    lowest = min(know.dealt, key=start_key)
    forced = [t for t in know.unseen if start_key(t) < start_key(lowest)]
    rng = random.Random(0)
    counts: Counter[Any] = Counter()
    rounds = 400
    other = range(9, 18) if seat == 0 else range(0, 9)
    for _ in range(rounds):
        deal = know.deal(rng)
        counts.update(deal[i] for i in other)
    assert not any(counts[t] for t in forced)
    expected = 9 / (27 - len(forced))
    free = [t for t in know.unseen if t not in forced]
    assert all(abs(counts[t] / rounds - expected) < 0.12 for t in free)


def test_the_other_seat_resampled_before_the_first_placement_starts_as_it_did() -> None:
    state = played(3, 2, 36)
    starter = state.current_player()
    for seat in range(3):
        for seed in range(5):
            twin = state.resample_from_infostate(seat, seed)
            assert twin.current_player() == starter
            assert twin.information_state_string(seat) == state.information_state_string(seat)


def test_during_the_deal_and_at_the_end_too() -> None:
    dealing = played(2, 1, 20)
    assert dealing.is_chance_node()
    twin = dealing.resample_from_infostate(1, 5)
    assert twin.information_state_string(1) == dealing.information_state_string(1) == "seat 1: "
    assert len(twin.history()) == 20 and len(set(twin.history())) == 20
    over = played(2, 1, 10_000)
    assert over.is_terminal()
    ended = assert_indistinguishable(over, 0, 9)
    assert ended.is_terminal() and ended.returns() == over.returns()


def test_the_sampler_may_be_a_seed_an_openspiel_sampler_or_none() -> None:
    state = played(2, 3, 50)
    a = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(7, 0.0, 1.0))
    b = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(7, 0.0, 1.0))
    assert a.history() == b.history()
    assert state.resample_from_infostate(0, None).information_state_string(0) == state.information_state_string(0)
    assert state.resample_from_infostate(0, lambda: 0.25).history() == \
        state.resample_from_infostate(0, lambda: 0.25).history()
    with pytest.raises(RLError, match="int seed, a callable or None"):
        state.resample_from_infostate(0, "seed")


def test_perfect_information_games_resample_as_a_clone() -> None:
    game = pyspiel.load_game("arena_btt(players=3)")
    state = game.new_initial_state()
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
    twin = state.resample_from_infostate(1, 4)
    assert twin.history() == state.history() and str(twin) == str(state)


def test_the_information_state_tensor_has_the_declared_size_on_every_game() -> None:
    for name in ("arena_btt", "arena_treeblox", "arena_roots(radius=3)", "arena_blox(height=8,width=8)",
                 "arena_the_tree(players=3)"):
        game = pyspiel.load_game(name)
        state = game.new_initial_state()
        size = game.information_state_tensor_size()
        assert size >= game.observation_tensor_size() > 0
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        tensor = np.asarray(state.information_state_tensor(state.current_player()))
        assert tensor.shape == (size,)
        if "the_tree" not in name:
            assert np.array_equal(tensor, state.observation_tensor(state.current_player()))


def test_the_tree_information_state_tensor_recalls_and_never_rules_out_the_truth() -> None:
    from open_spiel.python.observation import make_observation

    state = played(3, 21, 100)
    tree = state.position.state
    observer = make_observation(state.get_game(), pyspiel.IIGObservationType(perfect_recall=True))
    size = state.get_game().observation_tensor_size()
    for seat in range(3):
        observer.set_from(state, seat)
        views = observer.dict
        assert np.array_equal(observer.tensor[:size], state.observation_tensor(seat))
        assert np.array_equal(observer.tensor, state.information_state_tensor(seat))
        know = infostate.read(tuple(infostate.actions_from_start(state.position.log)), 3, seat)
        assert views["dealt"].sum() == 9 and {TILES[i] for i in np.flatnonzero(views["dealt"])} == set(know.dealt)
        assert views["placed_by"].sum() == len(tree.tiles)
        assert np.count_nonzero(views["placed_order"]) == len(tree.tiles)
        for other in range(3):
            row = views["may_hold"][(other - seat) % 3]
            for tile in tree.hands[other]:
                assert row[infostate.TILE_INDEX[tile]] == 1.0
            if other == seat:
                assert row.sum() == len(tree.hands[seat])
        for tile in tree.supply:
            assert views["may_be_in_supply"][infostate.TILE_INDEX[tile]] == 1.0
        placed = {TILES.index((min(m[:2]), max(m[:2]))) for m in tree.tiles}
        assert not views["may_hold"][:, sorted(placed)].any()
        assert views["draws"].sum() == sum(part.startswith("draw") for part in
                                           state.information_state_string(seat).split(" | "))


def test_a_blocked_seat_is_known_not_to_hold_what_fitted() -> None:
    """Somewhere in these games another seat drew or passed while a tile fitted and
    has drawn nothing since: the tensor rules that tile out of its hand."""
    ruled_out = 0
    for seed in range(6):
        state = played(2, seed, 120)
        for seat in range(2):
            know = infostate.read(tuple(infostate.actions_from_start(state.position.log)), 2, seat)
            on_tree = {tile for tile, _ in know.placed}
            ruled_out += sum(1 for t in know.unseen if t not in on_tree and not know.may_hold(1 - seat, t))
            assert not any(know.may_hold(1 - seat, t) for t in on_tree)
    assert ruled_out > 0


def test_pyspiel_random_sim_test_accepts_the_information_state_tensors() -> None:
    for name in ("arena_the_tree(players=2)", "arena_the_tree(players=4)", "arena_btt"):
        pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=2, serialize=True, verbose=False)


def test_a_position_rebuilt_from_an_observation_resamples_from_the_seats_view() -> None:
    """A bot's state (rebuilt from its observation: no history) is resampled from what
    the seat sees, not silently from the opening (the mcts bot searched the start)."""
    from arena.rl.openspiel import ArenaState

    state = played(2, 11, 50)
    seat = state.current_player()
    game = state.get_game()
    codec = state.position.codec
    rebuilt = ArenaState(game, game.bridge.wrap(codec.determinize(state.position.state.observation(seat),
                                                                  random.Random(1))))
    assert rebuilt.position.log is None
    twin = rebuilt.resample_from_infostate(seat, 3)
    assert twin.observation_string(seat) == state.observation_string(seat)
    assert twin.legal_actions() == state.legal_actions()
