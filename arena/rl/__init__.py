"""Every registered game for reinforcement-learning code (docs/rl.md): the five with
codecs of their own, any other through the generic codec (arena/rl/generic.py).

- `arena.rl.codec(game, seats, options)`: the fixed action numbering and the array
  observation of one game and option set (numpy only);
- `arena.rl.pettingzoo.env(game, **options)`: a PettingZoo AEC environment;
- `arena.rl.openspiel.load(game, **options)`: an OpenSpiel game (`pyspiel`), and
  `arena.rl.openspiel.register()` for `pyspiel.load_game("arena_btt")`.

The last two need the optional extra: `pip install 'arena[rl]'`.
"""

from __future__ import annotations

from arena.rl.codecs import codec
from arena.rl.spec import Codec, MissingExtra, RLError

__all__ = ["Codec", "MissingExtra", "RLError", "codec"]
