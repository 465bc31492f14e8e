"""A cheating bot for the escape suite: at its first request it tries the attack named by
ZOO_ATTACK, writes what it achieved to stderr as `ATTACK <name>: <result>` (the test
reads its log), then plays random legal actions as if nothing happened.

Attacks: network (connect to ZOO_TARGET host:port), write (create ZOO_TARGET and
append to ZOO_TARGET2), read (read the files ZOO_TARGET and ZOO_TARGET2), proc (list
/proc, read the referee's memory ZOO_TARGET pid, find .sqlite/.pgn files through
/proc/*/fd), kill (signal every process it can see but its own, and ZOO_TARGET pid),
daemon (a double-forked setsid process named ZOO_TARGET, then ZOO_SECONDS of thought), cgroup (move itself to the
root of every cgroup controller), memory (ZOO_CHILDREN children each holding ZOO_MB
MiB), fork (fork without end), pipe (shrink its stdin pipe to 4 KiB and think
ZOO_SECONDS), remember (keep each deal in its scratch folder and its memory and say
whether it finds an earlier one), disk (fill /scratch, /tmp and /dev/shm until refused), spin
(ZOO_CHILDREN processes burning CPU for ZOO_SECONDS while it decides), scratch (at each
game's first request, say whether last game's notes are still in /scratch and /tmp,
then leave new ones and a link to ZOO_TARGET), env (list the secrets in its environment),
environ (list every variable's name, and PATH), kernel (what a user mapped to root could
do: write /proc/sys/kernel/core_pattern and vm/drop_caches, make a user namespace, mount
a tmpfs, write ZOO_MB MiB to /dev/shm), writable (the mounts it may write to, and the
files of /proc outside its own processes' it could open for writing), hold (start a
process named ZOO_TARGET that lives ZOO_SECONDS, for the test to look at from outside, then
think ZOO_PAUSE seconds).
"""
import ctypes
import fcntl
import glob
import json
import os
import random
import signal
import socket
import sys
import time

ATTACK = os.environ.get("ZOO_ATTACK", "")
TARGET = os.environ.get("ZOO_TARGET", "")
TARGET2 = os.environ.get("ZOO_TARGET2", "")
F_SETPIPE_SZ = 1031
SEEN_DEALS: list[str] = []


def report(result: str) -> None:
    sys.stderr.write(f"ATTACK {ATTACK}: {result}\n")
    sys.stderr.flush()


def attempt(what: str, action) -> str:  # type: ignore[no-untyped-def]
    try:
        return f"{what} succeeded: {action()}"
    except Exception as exc:
        return f"{what} failed: {type(exc).__name__}"


def network() -> None:
    host, _, port = TARGET.rpartition(":")

    def connect() -> str:
        with socket.create_connection((host, int(port)), timeout=1) as conn:
            conn.sendall(b"escaped\n")
        return "connected"

    report(attempt("connect", connect))


def write() -> None:
    def create() -> str:
        with open(TARGET, "w") as handle:
            handle.write("escaped\n")
        return TARGET

    def append() -> str:
        with open(TARGET2, "a") as handle:
            handle.write("[Event \"forged\"]\n")
        return TARGET2

    def own_folder() -> str:
        with open("escaped.txt", "w") as handle:
            handle.write("x")
        return os.getcwd()

    def scratch() -> str:
        path = os.path.join(os.environ.get("ARENA_SCRATCH", "/scratch"), "note.txt")
        with open(path, "w") as handle:
            handle.write("mine")
        return "scratch"

    report("; ".join(attempt(what, fn) for what, fn in
                     (("create", create), ("append", append), ("own-folder", own_folder), ("scratch", scratch))))


def read() -> None:
    def reader(path: str):  # type: ignore[no-untyped-def]
        return lambda: f"{len(open(path, 'rb').read())} bytes"

    report("; ".join(attempt(f"read {i}", reader(path)) for i, path in enumerate((TARGET, TARGET2)) if path))


def proc() -> None:
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    found = []
    for fd in glob.glob("/proc/*/fd/*"):
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.endswith((".sqlite", ".pgn", ".log")):
            found.append(target)

    def memory() -> str:
        with open(f"/proc/{TARGET}/mem", "rb") as handle:
            return f"{len(handle.read(16))} bytes"

    report(f"pids {pids}; files {found}; {attempt('referee memory', memory)}")


def kill() -> None:
    own = {os.getpid(), os.getppid()}
    killed = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in own and int(entry) != 1:
            try:
                os.kill(int(entry), signal.SIGKILL)
                killed.append(int(entry))
            except OSError:
                pass
    report(f"killed {killed}; {attempt('referee', lambda: os.kill(int(TARGET), signal.SIGKILL))}")


def daemon() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            # a process that lives on, with ZOO_TARGET in its command line for the test to find
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)", TARGET])
        os._exit(0)
    for _ in range(200):  # say whether the daemon really runs, so a test of its end is no empty win
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    if TARGET.encode() in handle.read():
                        report("daemon started and running")
                        time.sleep(float(os.environ.get("ZOO_SECONDS", "0")))  # keep its game going a while
                        return
            except OSError:
                continue
        time.sleep(0.01)
    report("daemon started but not seen running")


def cgroup() -> None:
    results = []
    for procs in glob.glob("/sys/fs/cgroup/*/cgroup.procs") + ["/sys/fs/cgroup/cgroup.procs"]:
        results.append(attempt(f"join {procs}", lambda p=procs: open(p, "w").write(str(os.getpid()))))
    report("; ".join(results) or "no cgroup files to be seen")
    fork()


def memory() -> None:
    size = int(os.environ.get("ZOO_MB", "400")) << 20
    for _ in range(int(os.environ.get("ZOO_CHILDREN", "5"))):
        if os.fork() == 0:
            block = bytearray(size)
            block[:: 1 << 12] = b"x" * len(block[:: 1 << 12])
            time.sleep(3600)
            os._exit(0)
    report("children started")
    time.sleep(3600)


def fork() -> None:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from bots.zoo._base import fork_until_refused

    report(f"forked {fork_until_refused(2000)}")
    time.sleep(3600)


def pipe() -> None:
    report(attempt("shrink stdin", lambda: fcntl.fcntl(0, F_SETPIPE_SZ, 4096)))


def seed() -> None:
    """Recompute the deal as the arena once made it: Random(seed * 1000 + cycle) with the
    league's seed read off ARENA_BOT_SEED (seed * 100 + bot)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from arena.games.the_tree import TheTreeState

    bot_seed = int(os.environ.get("ARENA_BOT_SEED", "0"))
    hits = 0
    for base in {bot_seed // 100, bot_seed}:
        for cycle in range(4):
            state = TheTreeState(2)
            state.apply(state.sample_chance(random.Random(base * 1000 + cycle)))
            hits += sum(sorted(hand) == sorted(MY_HAND) for hand in state.hands)
    report(f"deals recomputed that hold my hand: {hits}")


def fill_file(path: str, most_mb: int) -> tuple[int, str]:
    """Write up to `most_mb` MiB to `path`: the MiB written, and the error that stopped it ("" if none)."""
    chunk = b"x" * (1 << 20)
    written = 0
    try:
        with open(path, "wb") as handle:
            while written < most_mb:
                handle.write(chunk)
                handle.flush()
                written += 1
    except OSError as exc:
        return written, type(exc).__name__
    return written, ""


def disk() -> None:
    def fill(folder: str) -> str:
        written, error = fill_file(os.path.join(folder, "fill"), 1 << 14)  # 16 GiB, well past any limit
        return f"{folder} filled {written} MiB" + (f": {error}" if error else "")

    report("; ".join(fill(f) for f in (os.environ.get("ARENA_SCRATCH", "/scratch"), "/tmp", "/dev/shm")))


def spin() -> None:
    seconds = float(os.environ.get("ZOO_SECONDS", "1"))
    children = []
    for _ in range(int(os.environ.get("ZOO_CHILDREN", "4"))):
        pid = os.fork()
        if pid == 0:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                pass
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
    report(f"spun {len(children)} processes for {seconds:g} s")


GAMES = [0]


def scratch_notes() -> None:
    GAMES[0] += 1
    folders = (os.environ.get("ARENA_SCRATCH", "/scratch"), os.environ.get("TMPDIR", "/tmp"))
    found = [f for f in folders if os.path.exists(os.path.join(f, "note.txt"))]
    report(f"game {GAMES[0]} of this process: notes found in {len(found)} folders")
    for folder in folders:
        os.makedirs(os.path.join(folder, "deep", "er"), exist_ok=True)
        with open(os.path.join(folder, "note.txt"), "w") as handle:
            handle.write("mine")
        if TARGET and not os.path.lexists(os.path.join(folder, "deep", "link")):
            os.symlink(TARGET, os.path.join(folder, "deep", "link"))  # emptying must not follow it


def env() -> None:
    secrets = sorted(name for name in os.environ if "SECRET" in name or name.startswith("ARENA_KEY"))
    report(f"secrets {secrets}")


def environ() -> None:
    report(f"names {sorted(os.environ)}; PATH {os.environ.get('PATH', '')}")


CLONE_NEWUSER = 0x10000000
CLONE_NEWNS = 0x00020000


def kernel() -> None:
    libc = ctypes.CDLL(None, use_errno=True)

    def write(path: str) -> str:
        with open(path, "w") as handle:
            handle.write("|/bin/sh\n" if "core" in path else "1\n")
        return "written"

    def unshare() -> str:
        if libc.unshare(CLONE_NEWUSER) != 0:
            raise OSError(ctypes.get_errno(), "unshare")
        return "a user namespace"

    def mount() -> str:
        if libc.unshare(CLONE_NEWNS) != 0 or libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) != 0:
            raise OSError(ctypes.get_errno(), "mount")
        return "a tmpfs"

    def shm() -> str:
        written, error = fill_file("/dev/shm/fill", int(os.environ.get("ZOO_MB", "64")))
        return f"{written} MiB" + (f" then {error}" if error else "")

    report("; ".join(attempt(what, fn) for what, fn in (
        ("core_pattern", lambda: write("/proc/sys/kernel/core_pattern")),
        ("drop_caches", lambda: write("/proc/sys/vm/drop_caches")), ("unshare", unshare), ("mount", mount),
        ("shm", shm))))


def writable() -> None:
    """The mounts it may write to (from /proc/self/mountinfo), and the files of /proc
    outside its own processes' folders that it could open for writing."""
    mounts = []
    for line in open("/proc/self/mountinfo"):
        fields = line.split()
        point, options = fields[4], fields[5].split(",")
        kind = fields[fields.index("-") + 1]
        if "rw" in options:
            mounts.append(f"{point}:{kind}")
    files = []
    for root, dirs, names in os.walk("/proc"):
        dirs[:] = [d for d in dirs if not d.isdigit() and d not in ("self", "thread-self")]
        for name in names:
            path = os.path.join(root, name)
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                files.append(path)
            except OSError:
                continue
    report(f"rw mounts {sorted(mounts)}; writable in /proc {sorted(files)}")


def hold() -> None:
    os.spawnv(os.P_NOWAIT, sys.executable, [sys.executable, "-c", "import sys, time; time.sleep(float(sys.argv[1]))",
                                             os.environ.get("ZOO_SECONDS", "3"), TARGET])
    report("holding")
    time.sleep(float(os.environ.get("ZOO_PAUSE", "0")))  # the game goes on no sooner: the holder is looked at


MY_HAND: list[tuple[int, int]] = []

ATTACKS = {"seed": seed, "network": network, "write": write, "read": read, "proc": proc, "kill": kill, "daemon": daemon,
           "cgroup": cgroup, "memory": memory, "fork": fork, "pipe": pipe, "disk": disk, "spin": spin, "env": env,
           "environ": environ, "kernel": kernel, "writable": writable, "hold": hold}


def remember(message: dict[str, object]) -> None:
    events: list[dict[str, object]] = message.get("events", [])  # type: ignore[assignment]
    deal = next((e["action"] for e in events if e["seat"] == -1), None)
    if deal is None:
        return
    notes = os.path.join(os.environ.get("ARENA_SCRATCH", "/tmp"), "deals.txt")
    earlier = open(notes).read().split("\n") if os.path.exists(notes) else []
    own = str(deal).removeprefix("deal ")
    known = any(own in d for d in [*SEEN_DEALS, *earlier])
    report(f"this hand seen before: {'yes' if known else 'no'} (memory {len(SEEN_DEALS)}, scratch "
           f"{len([d for d in earlier if d])})")
    SEEN_DEALS.append(str(deal))
    with open(notes, "a") as handle:
        handle.write(f"{deal}\n")


def main() -> None:
    rng = random.Random(1)
    attacked = False
    new_game = False
    for line in sys.stdin.buffer:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply = {"type": "ready", "name": f"zoo-escape-{ATTACK}"}
        elif kind == "start":
            new_game = True
            continue
        elif kind == "request":
            if ATTACK == "remember":
                remember(message)
            elif ATTACK == "scratch" and new_game:
                scratch_notes()
            elif ATTACK == "seed" and not attacked:
                attacked = True
                observation: dict[str, list[str]] = message["observation"]
                MY_HAND.extend((int(t[0]), int(t[1])) for t in observation["hand"])
                seed()
            elif not attacked and ATTACK != "scratch":
                attacked = True
                ATTACKS[ATTACK]()
                if ATTACK == "pipe":
                    time.sleep(float(os.environ.get("ZOO_SECONDS", "3")))
            elif ATTACK == "pipe":
                time.sleep(float(os.environ.get("ZOO_SECONDS", "3")))
            new_game = False
            reply = {"type": "action", "action": rng.choice(message["legal"])}
        elif kind == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


main()
