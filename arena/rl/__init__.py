"""Every registered game for reinforcement-learning code (docs/rl.md): the five with
codecs of their own, any other through the generic codec (arena/rl/generic.py).

- `arena.rl.codec(game, seats, options)`: the fixed action numbering and the array
  observation of one game and option set (numpy only);
- `arena.rl.TINY` and `arena.rl.tiny_setting(game)`: each game's smallest setting, for
  debugging an algorithm (arena/rl/tiny.py);
- `arena.rl.pettingzoo.env(game, **options)`: a PettingZoo AEC environment;
- `arena.rl.gym.env(game, seat=0, opponents="random")`: a Gymnasium single-agent
  environment, the other seats played inside it;
- `arena.rl.openspiel.load(game, **options)`: an OpenSpiel game (`pyspiel`), and
  `arena.rl.openspiel.register()` for `pyspiel.load_game("arena_btt")`;
- `arena.rl.data`: a bot's messages to a bridge position
  (`position_from_messages`), records and league databases to numpy arrays
  (`records_to_arrays`).

The environments and OpenSpiel need the optional extra: `pip install 'arena[rl]'`.
"""

from __future__ import annotations

from arena.rl.codecs import codec
from arena.rl.spec import Codec, MissingExtra, RLError
from arena.rl.tiny import TINY, Tiny, tiny_setting

__all__ = ["TINY", "Codec", "MissingExtra", "RLError", "Tiny", "codec", "tiny_setting"]
