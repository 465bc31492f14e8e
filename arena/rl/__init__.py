"""The five games for reinforcement-learning code (docs/rl.md).

- `arena.rl.codec(game, seats, options)`: the fixed action numbering and the array
  observation of one game and option set (numpy only);
- `arena.rl.pettingzoo.env(game, **options)`: a PettingZoo AEC environment;
- `arena.rl.openspiel.load(game, **options)`: an OpenSpiel game (`pyspiel`), and
  `arena.rl.openspiel.register()` for `pyspiel.load_game("arena_btt")`.

The last two need the optional extra: `pip install 'arena[rl]'`.
"""

from __future__ import annotations

from arena.rl.spec import Codec, MissingExtra, RLError, codec

__all__ = ["Codec", "MissingExtra", "RLError", "codec"]
