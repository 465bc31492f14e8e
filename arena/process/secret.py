"""The installation's secret key of chance: where it lives and how it is given. The
process layer hides both from every bot (the variable is never passed on, the file never
shown); the referee's seeds derive chance from the key."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

SECRET_ENV = "ARENA_SECRET"


def installation_key() -> bytes:
    """This installation's secret key for chance: $ARENA_SECRET (hex) if set, else a
    file made once with 32 random bytes (mode 0600) in the user's data folder, which the
    sandbox never shows a bot. The same seed gives the same deals on this machine; copy
    the file or set ARENA_SECRET to get them elsewhere. Without a writable home, a key
    for this process alone."""
    given = secret_from_environment()
    if given is not None:
        return given
    path = secret_path()
    try:
        return path.read_bytes()
    except OSError:
        pass
    key = secrets.token_bytes(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(key)
    except FileExistsError:
        return path.read_bytes()
    except OSError:
        return _PROCESS_KEY
    return key


def secret_from_environment() -> bytes | None:
    """$ARENA_SECRET as a key (hex, or its text as it is), None when it is not set."""
    text = os.environ.get(SECRET_ENV)
    if not text:
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        return text.encode()


def secret_path() -> Path:
    """Where the installation's secret key lives."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "arena" / "secret"


_PROCESS_KEY = secrets.token_bytes(32)
