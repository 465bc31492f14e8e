"""A bot's fault as an exception (raised where it is found: the pipe, the decoder, the
clock) and as a record of the seat it cost (kept in the game's outcome)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.termination import Termination


class BotFault(Exception):
    """A bot broke the contract; `reason` is the record's termination reason."""

    def __init__(self, reason: Termination, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class SeatFault:
    """Why a seat was forfeited or removed, and at which ply (0: at start-up)."""

    seat: int
    reason: Termination
    detail: str
    ply: int

    @property
    def when(self) -> str:
        return "at start-up" if self.ply == 0 else f"at ply {self.ply}"
