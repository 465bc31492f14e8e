"""Why a game ended: one vocabulary for the referee, the records, the league's tables
and the bots (the `termination` of the end message and the record's Termination tag).

Each reason knows whether it is a bot's fault and which column of a table counts it,
so no layer keeps its own list of strings."""

from __future__ import annotations

from enum import StrEnum


class Termination(StrEnum):
    """How a game ended; the value is the text in records and messages."""

    NORMAL = "normal"
    """The rules ended the game."""
    STARTUP_FAILURE = "startup-failure"
    """The bot's command could not run, it exited, or it answered hello with something
    other than a valid ready."""
    STARTUP_TIMEOUT = "startup-timeout"
    """No ready within the start-up limit."""
    TIME_OUT = "time-out"
    """No answer within the limit plus grace, or a request it did not read in time."""
    CRASH = "crash"
    """The bot's process exited or was killed."""
    CLOSED_PIPE = "closed-pipe"
    """It closed its stdout or stdin while still running."""
    MALFORMED = "malformed"
    """A line that is not a valid message."""
    OVERSIZED_LINE = "oversized-line"
    """A line longer than the maximum."""
    UNEXPECTED_MESSAGE = "unexpected-message"
    """A message of the wrong type, or output nobody asked for."""
    ILLEGAL_ACTION = "illegal-action"
    """An action the rules do not allow at that point."""
    MEMORY_LIMIT = "memory-limit"
    """The bot's process tree went over its memory limit and was killed."""
    PROCESS_LIMIT = "process-limit"
    """The bot's process tree tried to run more processes than its limit, then failed."""
    INFRASTRUCTURE_ERROR = "infrastructure-error"
    """An error of the arena itself: the game is void, never a bot's fault."""

    @property
    def bot_fault(self) -> bool:
        """Whether the bot is to blame (it forfeits, or is removed and ranked last)."""
        return self not in (Termination.NORMAL, Termination.INFRASTRUCTURE_ERROR)

    @property
    def column(self) -> str | None:
        """The faults column of the league's and the match's tables that counts this
        reason (None for reasons that are not faults)."""
        return _COLUMNS.get(self)


_COLUMNS = {
    Termination.STARTUP_FAILURE: "start-up",
    Termination.STARTUP_TIMEOUT: "start-up",
    Termination.TIME_OUT: "time-outs",
    Termination.CRASH: "crashes",
    Termination.CLOSED_PIPE: "crashes",
    Termination.MALFORMED: "protocol",
    Termination.OVERSIZED_LINE: "protocol",
    Termination.UNEXPECTED_MESSAGE: "protocol",
    Termination.ILLEGAL_ACTION: "illegal",
    Termination.MEMORY_LIMIT: "limits",
    Termination.PROCESS_LIMIT: "limits",
}


def fault_column(reason: str) -> str:
    """The column for a stored reason (a reason unknown to this version counts under
    its own name, so an old database still reads)."""
    try:
        return Termination(reason).column or reason
    except ValueError:
        return reason
