"""A finished game as it travels back from a worker: a plain dict (JSON-able), and the
GameOutcome the league stores, rebuilt from it."""

from __future__ import annotations

from typing import Any

from arena import records
from arena.process.faults import SeatFault
from arena.records.reader import read_text
from arena.referee.outcome import GameOutcome
from arena.termination import Termination


def report(index: int, outcome: GameOutcome) -> dict[str, Any]:
    """What the league needs of game `index` (its schedule number)."""
    return {
        "index": index, "ranks": list(outcome.ranks),
        "scores": None if outcome.scores is None else list(outcome.scores),
        "faults": [{"seat": f.seat, "reason": str(f.reason), "detail": f.detail, "ply": f.ply} for f in outcome.faults],
        "termination": str(outcome.termination), "decisions": outcome.decisions, "error": outcome.error,
        "record": records.write(outcome.record),
    }


def outcome(data: dict[str, Any]) -> GameOutcome:
    """The GameOutcome a report describes (its record read back from text)."""
    record = read_text(str(data["record"]))[0]
    faults = [SeatFault(int(f["seat"]), Termination(f["reason"]), str(f["detail"]), int(f["ply"]))
              for f in data["faults"]]
    scores = None if data["scores"] is None else tuple(float(s) for s in data["scores"])
    return GameOutcome(record, tuple(int(r) for r in data["ranks"]), scores, faults, Termination(data["termination"]),
                       int(data["decisions"]), data.get("error"))
