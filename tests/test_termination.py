"""One vocabulary of termination reasons: every bot fault has a column in the tables,
the protocol document lists every reason, and the league groups them by column."""

from __future__ import annotations

from pathlib import Path

from arena.league.standings import compute_standings
from arena.league.store import StoredFault, StoredGame
from arena.termination import Termination, fault_column

ROOT = Path(__file__).resolve().parent.parent


def test_every_bot_fault_has_a_column_and_no_other_reason_does() -> None:
    for reason in Termination:
        assert (reason.column is not None) == reason.bot_fault, reason
    assert {r for r in Termination if not r.bot_fault} == {Termination.NORMAL, Termination.INFRASTRUCTURE_ERROR}
    assert Termination.STARTUP_TIMEOUT.column == Termination.STARTUP_FAILURE.column == "start-up"
    assert Termination.OVERSIZED_LINE.column == Termination.MALFORMED.column == "protocol"


def test_the_protocol_document_lists_every_bot_fault() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text()
    for reason in Termination:
        if reason.bot_fault:
            assert f"| `{reason}` |" in text, reason


def test_the_league_table_counts_each_reason_in_its_column() -> None:
    faults = tuple(StoredFault(1, 1, reason.value, "", 1) for reason in Termination if reason.bot_fault)
    games = [StoredGame(i, 0, (0, 1), 1, (1, 2), None, (fault,), fault.reason, 3) for i, fault in enumerate(faults)]
    standings = compute_standings(["a", "b"], 2, games)
    row = next(r for r in standings.rows if r.name == "b")
    assert row.faults == {"start-up": 2, "time-outs": 1, "crashes": 2, "protocol": 3, "illegal": 1, "limits": 2}
    assert fault_column("a-reason-from-the-future") == "a-reason-from-the-future"
