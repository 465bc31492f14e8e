"""Another git revision of the arena, built in a virtual environment of its own for
`arena bench --compare`: the revision's files exported with `git archive` (the
checkout and its work tree are left alone), a venv made by the running interpreter,
and the revision installed into it with pip. Kept under the user's cache folder, keyed
by the full commit hash and the Python version, so the next comparison with the same
revision starts at once.
"""

from __future__ import annotations

import fcntl
import io
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path

from arena.errors import ArenaError, excerpt
from arena.files import extract_data

READY = "ready"
"""The file that marks a finished build (a build cut short is started afresh)."""

Builder = Callable[[Path, Path], None]
"""Makes a virtual environment at its second argument with the source tree at its first
installed in it (pip_builder; tests pass a fake)."""


class RevisionError(ArenaError):
    """A revision that cannot be compared with: not a commit, no checkout, a failed build."""


def source_checkout() -> Path:
    """The git checkout the running arena was imported from (--compare needs its history)."""
    here = Path(__file__).resolve().parents[2]
    done = subprocess.run(["git", "-C", str(here), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if done.returncode != 0:
        raise RevisionError(f"the arena running here ({here}) is not a git checkout, so it has no revisions to "
                            "build: run arena bench --compare from a clone installed with pip install -e")
    return Path(done.stdout.strip())


def resolve(repo: Path, rev: str) -> str:
    """The full hash of the commit `rev` names in `repo` (a hash, tag, branch, HEAD~3...)."""
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", "--end-of-options",
                           f"{rev}^{{commit}}"], capture_output=True, text=True)
    if done.returncode != 0 or not done.stdout.strip():
        raise RevisionError(f"--compare {excerpt(rev)} names no commit of the checkout at {repo}: give a commit hash, "
                            "tag or branch that `git log --oneline` shows (a shallow clone may lack old commits: "
                            "git fetch --unshallow)")
    return done.stdout.strip()


def cache_root() -> Path:
    """Where built revisions are kept: $XDG_CACHE_HOME/arena/bench-revisions (default
    ~/.cache/arena/bench-revisions)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arena" / "bench-revisions"


def export(repo: Path, commit: str, target: Path) -> None:
    """The files of `commit` (as committed, not as in the work tree) into `target`."""
    done = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", commit], capture_output=True)
    if done.returncode != 0:
        raise RevisionError(f"git archive {commit[:12]} failed: {done.stderr.decode(errors='replace').strip()[-300:]}")
    target.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        extract_data(archive, target)


def pip_builder(source: Path, venv: Path, extras: tuple[str, ...] = ()) -> None:
    """A venv made by this interpreter, with `source` and its dependencies installed by
    pip (with its optional `extras`: ("rl",) for the RL bridges' benchmark)."""
    target = f"{source}[{','.join(extras)}]" if extras else str(source)
    for command in ([sys.executable, "-m", "venv", str(venv)],
                    [str(venv_python(venv)), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                     target]):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RevisionError(f"building the revision failed at {' '.join(command[-3:])!r}: "
                                f"{(done.stderr or done.stdout).strip()[-500:]}")


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def with_extras(extras: tuple[str, ...]) -> Builder:
    """pip_builder installing the revision with its optional `extras` too."""
    return lambda source, venv: pip_builder(source, venv, extras)


def build(repo: Path, commit: str, root: Path, builder: Builder = pip_builder, variant: str = "") -> Path:
    """The Python of a venv holding `commit` of the arena, built on first use and kept
    under `root`; two comparisons building the same revision at once take turns. A
    `variant` ("rl": built with the rl extra) is kept apart from the plain build."""
    key = f"{commit}-py{sys.version_info.major}.{sys.version_info.minor}" + (f"-{variant}" if variant else "")
    folder = root / key
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / READY).exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build cut short
            try:
                export(repo, commit, folder / "src")
                builder(folder / "src", folder / "venv")
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            (folder / READY).write_text(commit + "\n")
    return venv_python(folder / "venv")
