"""Game records: the model, the PGN-like text format (read and written), replay and
verification through the rules, and the self-contained HTML viewer.

    from arena import records
    for record in records.read("games.pgn"):      # one game at a time
        assert records.verify(record) == []       # every action legal, the result right
        for ply, entry, state in records.replay(record): ...
"""

from __future__ import annotations

from arena.records import replay as _replay_module
from arena.records.files import append, read
from arena.records.reader import iter_records, read_text
from arena.records.record import GameRecord, Ply, RecordSyntaxError
from arena.records.replay import Problem, ReplayError, initial_state, state_at, turn_frames, verify
from arena.records.writer import write, write_all

replay = _replay_module.replay
"""(0, None, initial state), then (i, ply i, state after it) for each ply of a record."""
# Bound after the module of the same name is imported, which would otherwise shadow it.

__all__ = [
    "read", "read_text", "iter_records", "write", "write_all", "append",
    "verify", "replay", "state_at", "turn_frames", "initial_state",
    "GameRecord", "Ply", "Problem", "RecordSyntaxError", "ReplayError",
]
