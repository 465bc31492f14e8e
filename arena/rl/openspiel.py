"""Every registered game as an OpenSpiel Python game (docs/rl.md).

    import pyspiel
    from arena.rl import openspiel
    game = openspiel.load("btt", players=3)          # or, after openspiel.register():
    game = pyspiel.load_game("arena_btt(players=3)")

Short names are `arena_` and the game id with `_` for `-`: arena_treeblox,
arena_the_tree, arena_roots, arena_blox, arena_btt (and any game registered later).
Parameters are `players` and the game's variant options (`board`, `radius`,
`width`...). Game types come from the game's attributes: sequential, terminal rewards
(rank-based utilities in -1..1), zero-sum for 2 players and general-sum otherwise,
imperfect information where the game hides some (The Tree), explicit stochastic chance
where it has chance (The Tree's deal, one tile per chance node; Roots' dice, one roll
per chance node), deterministic otherwise. States clone, serialise and replay
through OpenSpiel's own machinery; observation tensors are the codec's vectors, with
the codec's named pieces as the observer's `dict`. Information state tensors are the
observation's for the perfect-information games, and for The Tree the observation and
what the seat recalls (arena/rl/infostate.py); a resampled state of The Tree carries
a whole history that agrees with the seat's information state.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from arena import games
from arena.games import CHANCE, GAMES, TERMINAL
from arena.rl import infostate
from arena.rl.bridge import Bridge, Position
from arena.rl.spec import Pieces, RLError, Tensor, missing

try:
    import pyspiel
except ImportError as exc:
    raise missing("pyspiel (open-spiel)", exc) from None

PREFIX = "arena_"


def short_name(game_id: str) -> str:
    return PREFIX + game_id.replace("-", "_")


def _parameters(game_id: str) -> dict[str, Any]:
    """OpenSpiel's parameter specification: players and the variant options, whole
    numbers as ints."""
    game = games.get(game_id)
    spec: dict[str, Any] = {"players": game.min_seats}
    for option in game.options:
        spec[option.name] = int(option.default) if option.default.isdigit() else option.default
    return spec


def _game_type(game_id: str, players: int | None) -> Any:
    """The game's type; with `players` given, its utility for that many players."""
    game = games.get(game_id)
    stochastic = game.has_chance
    two = players == 2
    return pyspiel.GameType(
        short_name=short_name(game_id),
        long_name=f"{game.name} (arena)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if stochastic
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION if game.has_hidden_information
                     else pyspiel.GameType.Information.PERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.ZERO_SUM if two else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_seats,
        min_num_players=game.min_seats,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(game_id),
    )


class ArenaGame(pyspiel.Game):
    """One arena game, seat count and option set as an OpenSpiel game."""

    game_id = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        game_id = self.game_id
        spec = _parameters(game_id)
        given = dict(params or {})
        unknown = set(given) - set(spec)
        if unknown:
            raise RLError(f"{short_name(game_id)} has no parameter {', '.join(sorted(unknown))} "
                          f"(parameters: {', '.join(spec)})")
        values = {**spec, **given}
        players = int(values.pop("players"))
        self.bridge = Bridge(game_id, players, {k: str(v) for k, v in values.items()})
        codec = self.bridge.codec
        info = pyspiel.GameInfo(
            num_distinct_actions=codec.num_actions,
            max_chance_outcomes=codec.chance.max_outcomes,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if players == 2 else None,
            max_game_length=codec.max_decisions(),
        )
        super().__init__(_game_type(game_id, players), info, {**spec, **given})

    def new_initial_state(self, *args: Any) -> ArenaState:
        if args:
            raise RLError("arena games start only from their initial state")
        return ArenaState(self, self.bridge.new_position())

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer | PlanesObserver:
        """The codec's observer; with params {"shape": "planes"} the board as planes
        (C, H, W) instead (`dict["planes"]`; docs/rl.md, "Planes")."""
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        if params:
            if dict(params) != {"shape": "planes"} or recall:
                raise RLError(f"observer parameters: only {{'shape': 'planes'}} for the plain observer (given "
                              f"{params})")
            return PlanesObserver(self.bridge)
        return Observer(self.bridge, perfect_recall=recall)

    def max_chance_nodes_in_history(self) -> int:
        return self.bridge.codec.chance.max_nodes

    def observation_tensor_size(self) -> int:
        return int(self.bridge.codec.pieces.size)

    def observation_tensor_shape(self) -> list[int]:
        """Flat: without this, pyspiel makes a fresh initial state and encodes it on
        every call to learn the size."""
        return [int(self.bridge.codec.pieces.size)]


class ArenaState(pyspiel.State):
    """A position. Its Python attributes are what OpenSpiel copies when it clones or
    serialises a state: the position (which pickles as its game and action list) and,
    for a game with hidden information, what each seat has seen."""

    def __init__(self, game: ArenaGame, position: Position) -> None:
        super().__init__(game)
        self.position = position
        self.seen: list[list[str]] | None = (
            [[] for _ in range(position.codec.seats)] if game.bridge.game.has_hidden_information else None)

    def current_player(self) -> int:
        who = self.position.current()
        if who == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        if who == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        return who

    def _legal_actions(self, player: int) -> list[int]:
        return self.position.legal()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.position.outcomes()

    def _apply_action(self, action: int) -> None:
        position = self.position
        if self.seen is not None:
            whole = position.completes(action)
            if whole is not None:
                actor = position.current()
                for seat, log in enumerate(self.seen):
                    shown = position.state.visible_action(whole, actor, seat)
                    if shown is not None:
                        log.append(shown)
        position.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self.position.codec.chance.label(action)
        return self.position.codec.names[action]

    def is_terminal(self) -> bool:
        return self.position.is_terminal()

    def observation_tensor(self, player: int | None = None) -> Tensor:
        """The seat's observation vector as a read-only float32 numpy array, made once
        per position and seat: pyspiel's own path converts it to a list float by float
        (most of what an observation cost for the large vectors). C++ callers still go
        through the Observer."""
        if player is None:
            player = self.current_player()
        seats = self.position.codec.seats
        if not 0 <= player < seats:
            raise RLError(f"observation_tensor: player {player} is not a seat (0..{seats - 1})")
        return observation_tensor(self.position, player)

    def returns(self) -> list[float]:
        return self.position.utilities()

    def evaluate(self) -> list[float] | None:
        """The codec's judgement of a position from the game's running score (0..1 per
        seat), for a search's playouts cut short; None where the game has none."""
        return self.position.codec.evaluate(self.position.state.observation(0))

    def playout_cutoff(self) -> int | None:
        return self.position.codec.playout_cutoff

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> ArenaState:
        """A state `player_id` cannot tell from this one, with a whole history: for The
        Tree the same actions after a deal drawn among those that agree with everything
        the seat saw (arena/rl/infostate.py), so the information state string is the
        same and the state pickles, serialises and clones; for a perfect-information
        game a clone (for another game with hidden information, or a position without
        a history, such as one a bot rebuilt from its observation, its codec's
        `resample`: a position without a history, which does not pickle).
        `probability_sampler`: an int seeds the draw; a callable
        (OpenSpiel's `UniformProbabilitySampler`, as ISMCTSBot passes) is called once
        and its value in [0, 1) seeds it; None draws from a fresh generator."""
        if self.seen is None:
            clone: ArenaState = self.clone()
            return clone
        rng = sampler_rng(probability_sampler)
        position = self.position
        if position.codec.game_id != infostate.GAME_ID or position.log is None:
            # Another hidden-information game, or a position rebuilt from an observation
            # (a bot's): no history to keep, so the codec's resample from the seat's view.
            return ArenaState(self.get_game(), position.resample(player_id, rng))
        game: ArenaGame = self.get_game()
        twin = game.new_initial_state()
        for index in _resampled_ids(position, player_id, rng):
            twin.apply_action(index)
        return twin

    def __str__(self) -> str:
        return self.position.describe()


def sampler_rng(probability_sampler: Any) -> random.Random:
    """The generator a resampling draws from: seeded by an int, or by one value of a
    callable sampler (scaled from [0, 1) to 53 bits), or fresh (seeded by the OS)."""
    if isinstance(probability_sampler, int) and not isinstance(probability_sampler, bool):
        return random.Random(probability_sampler)
    if probability_sampler is None:
        return random.Random()
    if callable(probability_sampler):
        return random.Random(int(float(probability_sampler()) * (1 << 53)))
    raise RLError("probability_sampler must be an int seed, a callable or None, "
                  f"not {type(probability_sampler).__name__}")


def _resampled_ids(position: Position, seat: int, rng: random.Random) -> list[int]:
    """The ids from the start of a history the seat cannot tell from this one's: a
    resampled deal (or, during the deal, other tiles dealt so far) and the same
    actions after it."""
    codec = position.codec
    actions = infostate.actions_from_start(position.log)
    if not actions:
        return infostate.partial_deal(len(position.partial), rng)
    deal = infostate.resample_deal(tuple(actions), codec.seats, seat, rng)
    ids = list(codec.chance.encode(position.state, deal))
    for action in actions[1:]:
        ids.extend(codec.path(action))
    return ids + list(position.pending)


_Seen = tuple[Position | None, object, tuple[int, ...], dict[int, Tensor]]
_last: _Seen = (None, None, (), {})
"""The last position's observation vectors by seat: OpenSpiel asks for the same one
several times (random_sim_test thrice per seat and state, and an information state
tensor holds the observation)."""


def _observation(position: Position) -> dict[int, Tensor]:
    """The vectors made so far of this position (empty when it moved on)."""
    global _last
    seen = _last
    if position.log is None:
        return {}
    if seen[0] is not position or seen[1] is not position.log or seen[2] != position.pending:
        seen = _last = (position, position.log, position.pending, {})
    return seen[3]


def observation_tensor(position: Position, player: int) -> Tensor:
    """The seat's observation vector, made once per position and seat in a row, and
    read-only: repeated calls share it (Position.tensor makes a new array, so no copy
    is needed)."""
    made = _observation(position)
    tensor = made.get(player)
    if tensor is None:
        tensor = made[player] = np.asarray(position.tensor(player), np.float32)
        tensor.flags.writeable = False
    return tensor


class Observer:
    """OpenSpiel's observer protocol: `tensor` and `dict` (named pieces) set by
    `set_from`, and a string per seat. The plain observer gives the codec's
    observation; the perfect-recall one (information states) gives every action as the
    seat saw it as its string, and as its tensor the observation, with what the seat
    recalls beyond it for The Tree (arena/rl/infostate.py)."""

    def __init__(self, bridge: Bridge, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        codec = bridge.codec
        self.recalls = perfect_recall and codec.game_id == infostate.GAME_ID
        self.pieces: Pieces = infostate.pieces(codec.pieces, codec.seats) if self.recalls else codec.pieces
        self.tensor, self.dict = self.pieces.zeros()
        self.size = codec.pieces.size

    def set_from(self, state: ArenaState, player: int) -> None:
        position = state.position
        if not self.recalls:
            self.tensor[:] = observation_tensor(position, player)
            return
        self.tensor.fill(0.0)
        self.tensor[:self.size] = observation_tensor(position, player)
        actions = infostate.actions_from_start(position.log)
        if actions:
            infostate.fill(self.dict, infostate.read(tuple(actions), position.codec.seats, player))

    def string_from(self, state: ArenaState, player: int) -> str:
        if not self.perfect_recall:
            return state.position.observation_string(player)
        if state.seen is None:
            return " ".join(str(a) for a in state.history())
        return f"seat {player}: " + " | ".join(state.seen[player])


class PlanesObserver:
    """The board as planes (C, H, W) for convolutional networks: `tensor` flat, as
    OpenSpiel's observers give it, `dict["planes"]` the same numbers shaped."""

    def __init__(self, bridge: Bridge) -> None:
        shape = bridge.codec.planes_shape
        if shape is None:
            raise RLError(f"{bridge.codec.game_id} has no planes (no board grid): use the plain observer")
        self.tensor: Tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict: dict[str, Tensor] = {"planes": self.tensor.reshape(shape)}

    def set_from(self, state: ArenaState, player: int) -> None:
        self.dict["planes"][...] = state.position.planes(player)

    def string_from(self, state: ArenaState, player: int) -> str:
        return state.position.observation_string(player)


def load(game: str, players: int | None = None, **options: Any) -> ArenaGame:
    """The OpenSpiel game for an arena game, seat count and variant options."""
    register()
    games.get(game)  # a GameError naming the games for an unknown one
    params: dict[str, Any] = dict(options)
    if players is not None:
        params["players"] = players
    return game_class(game)(params)


_CLASSES: dict[str, type[ArenaGame]] = {}
"""A class per registered game, made from the registry and OpenSpiel's factory for it:
a class outlives the interpreter's shutdown, where OpenSpiel's registry releases its
factories (a plain function there is freed without the interpreter's lock and aborts
the process). Each is also a name of this module, so a game pickles by name."""


def game_class(game_id: str) -> type[ArenaGame]:
    """The OpenSpiel game class of a registered game (made on first use)."""
    made = _CLASSES.get(game_id)
    if made is None:
        name = "Arena_" + game_id.replace("-", "_")
        made = type(name, (ArenaGame,), {"game_id": game_id, "__module__": __name__, "__qualname__": name,
                                         "__doc__": f"The arena's {game_id} as an OpenSpiel game."})
        globals()[name] = _CLASSES[game_id] = made
    return made


def __getattr__(name: str) -> type[ArenaGame]:
    """A game's class by its name, made on first use: a game pickled in one process
    unpickles in a fresh one, where no class has been made yet."""
    for game_id in GAMES:
        if name == "Arena_" + game_id.replace("-", "_"):
            return game_class(game_id)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_REGISTERED: set[str] = set()


def register() -> None:
    """Register every game of the registry with OpenSpiel (`pyspiel.load_game("arena_btt")`),
    each once: a game added to the registry later is registered at the next call. Its
    game type is fixed then (OpenSpiel cannot forget a game)."""
    for game_id in GAMES:
        if game_id not in _REGISTERED:
            pyspiel.register_game(_game_type(game_id, None), game_class(game_id))
            _REGISTERED.add(game_id)


register()
