"""A request the ladder's web side turns down: its HTTP status and the sentence that
says why. Every check of a request (who sends it, its body, its address) raises it;
a page route shows it as a page, an API route as {"error": ...}."""

from __future__ import annotations


class Refused(Exception):
    """A request this app turns down: its status and the sentence that says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def address_number(text: str, what: str) -> int:
    """A number from an address (int() would take '²' or 5,000 digits): 404 otherwise."""
    if not (text.isascii() and text.isdigit() and len(text) <= 12):
        raise Refused(404, f"no such {what}: the address takes a number")
    return int(text)
