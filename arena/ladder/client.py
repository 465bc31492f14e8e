"""`arena ladder submit`: an entrant's side of the API, with the standard library's
HTTP client (the same call as `curl -H "Authorization: Bearer TOKEN" -F bot=@bot.zip
-F language=c URL/api/bots`). A folder is sent as a zip of its files, leaving out
version-control folders, caches and the arena's own artifacts."""

from __future__ import annotations

import io
import json
import secrets
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.errors import ArenaError

SKIPPED = {".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".venv", "node_modules", "target"}
WAIT_S = 600.0


class ClientError(ArenaError):
    """The submission could not be made; the message names the fix."""


def pack(path: Path) -> tuple[str, bytes]:
    """(file name, bytes) of what is sent: a file as it is, a folder as a zip."""
    if path.is_file():
        return path.name, path.read_bytes()
    if not path.is_dir():
        raise ClientError(f"{path}: no such file or folder; give the bot's folder, an archive or its source file")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(path.rglob("*")):
            relative = file.relative_to(path)
            if any(part in SKIPPED for part in relative.parts) or file.is_symlink() or not file.is_file():
                continue
            if file.suffix in (".pyc", ".o", ".log", ".pgn", ".sqlite"):
                continue
            archive.write(file, relative.as_posix())
    return f"{path.resolve().name or 'bot'}.zip", buffer.getvalue()


def _multipart(fields: dict[str, str], file_name: str, data: bytes) -> tuple[bytes, str]:
    boundary = "arena-" + secrets.token_hex(12)
    parts = []
    for key, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode())
    safe_name = file_name.replace('"', "_").replace("\r", "_").replace("\n", "_")
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="bot"; filename="{safe_name}"\r\n'
                 "Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _call(request: urllib.request.Request) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310 - the entrant's own URL
            return dict(json.loads(answer.read() or b"{}"))
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read()).get("error", "")
        except (ValueError, AttributeError):
            message = ""
        if exc.code == 401:
            message = message or "the token was refused"
            raise ClientError(f"{message}; check --token (the organiser can give you a new one)") from None
        raise ClientError(f"the ladder answered {exc.code}: {message or exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ClientError(f"cannot reach {request.full_url} ({reason}); check the address and that the ladder "
                          "runs") from None


def submit(url: str, path: Path, token: str, language: str, name: str | None, wait: bool,
           say: Callable[[str], None]) -> tuple[str, str]:
    """Send the bot; with `wait`, follow its build and check. (state, log)."""
    if not url.startswith(("http://", "https://")):
        raise ClientError(f"{url}: give the ladder's address with http:// or https://")
    base = url.rstrip("/")
    file_name, data = pack(path)
    fields = {"language": language, **({"name": name} if name else {})}
    body, content_type = _multipart(fields, file_name, data)
    headers = {"Authorization": f"Bearer {token.strip()}", "Content-Type": content_type}
    answer = _call(urllib.request.Request(f"{base}/api/bots", data=body, headers=headers, method="POST"))
    version = answer.get("version")
    say(f"sent {file_name} ({len(data)} bytes): {answer.get('bot')} version {answer.get('number')}, "
        f"{answer.get('state')}; {base}{answer.get('url', '')}")
    if not wait or version is None:
        return str(answer.get("state", "building")), ""
    deadline = time.monotonic() + WAIT_S
    state = str(answer.get("state"))
    while time.monotonic() < deadline:
        time.sleep(1.0)
        status = _call(urllib.request.Request(f"{base}/api/version/{int(version)}",
                                              headers={"Authorization": f"Bearer {token.strip()}"}))
        if status.get("state") != state:
            state = str(status.get("state"))
            say(f"{state}")
        if state in ("ready", "failed"):
            return state, str(status.get("log", ""))
    raise ClientError(f"the version is still {state} after {WAIT_S:.0f} s; see {base}{answer.get('url', '')}")
