"""A cheating bot for the escape suite: it plays The Tree and tries to pass its dealt hand
to another sandbox, and to read the hands of others, through kernel state that two
sandboxes both reach. The other side is another process of itself: at another seat of
the same table, at another table of a league playing the same deal, or the fresh
process that plays the same deal after a rotation.

ZOO_CHANNEL names the mailboxes (several, comma-separated, are tried side by side):
- keys: a kernel key per seat holding its hand, opened to every user and linked into
  the user's keyring as well as its own (so it outlives the process); others are found
  in /proc/keys (or by name in the user's keyring where /proc/keys is hidden) and read
  with KEYCTL_READ.
- flock, lockf, ofd: one file of the Python installation per tile (a shared read-only
  folder); a seat holds a lock on the files of its tiles (flock, POSIX record locks,
  open-file-description locks); the others try a lock on every file without waiting.
- inotify: a seat opens the files of its tiles again and again; the others watch every
  file for opens.
- hint: a seat sets the write-life hint (F_SET_RW_HINT) of the files of its tiles among
  the shared files its user owns (an ordinary user owns the toolchain in its home);
  the others read the hints (F_GET_RW_HINT).
- fifo: FIFOs chan0..chan3 in the bot's folder (ZOO_FOLDER), a folder too large to be
  copied: a seat writes its hand to its FIFO and reads the others'.

At every request it writes what it learnt to stderr, as
`ATTACK <channel>: game G: sent <how>; found <tiles or nothing>; my hand <tiles>`, and
plays a random legal action. Standard library only (ctypes for the system calls).
"""
import ctypes
import errno
import fcntl
import json
import os
import platform
import random
import struct
import sys
import time

CHANNELS = os.environ.get("ZOO_CHANNEL", "keys").split(",")
LOCK_KINDS = ("flock", "lockf", "ofd")
LISTENS = 3
"""Turns of each game at which it listens (and reports): by its third turn every other
seat has had one and sent."""
TILES = [f"{a}{b}" for a in range(8) for b in range(a, 8)]
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
NUMBERS = {"x86_64": {"add_key": 248, "keyctl": 250}, "aarch64": {"add_key": 217, "keyctl": 219}}
CALLS = NUMBERS.get(platform.machine(), NUMBERS["x86_64"])
KEY_SPEC_USER_KEYRING, KEY_SPEC_PROCESS_KEYRING = -4, -2
KEYCTL_SETPERM, KEYCTL_LINK, KEYCTL_SEARCH, KEYCTL_READ = 5, 8, 10, 11
ALL_PERMISSIONS = 0x3F3F3F3F
F_OFD_SETLK, F_OFD_GETLK = 37, 36


def report(channel: str, text: str) -> None:
    sys.stderr.write(f"ATTACK {channel}: {text}\n")
    sys.stderr.flush()


def syscall(name: str, *args: object) -> int:
    result = LIBC.syscall(CALLS[name], *args)
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return int(result)


def shared_files() -> list[str]:
    """Files every sandbox sees: the Python installation's own modules, in a fixed order
    (a block of 36 per seat and kind of lock)."""
    folder = os.path.dirname(os.__file__)
    found = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        found += [os.path.join(root, n) for n in sorted(names) if n.endswith(".py")]
        if len(found) >= (4 * len(LOCK_KINDS) + 1) * len(TILES):
            break
    return found


class Mailbox:
    """One channel: `send` a hand (once per game), `receive` what others sent."""

    def __init__(self, seat: int, channel: str) -> None:
        self.seat = seat
        self.channel = channel
        self.held: list[int] = []

    def send(self, hand: list[str]) -> str:
        raise NotImplementedError

    def receive(self) -> list[str]:
        raise NotImplementedError

    def close(self) -> None:
        for fd in self.held:
            os.close(fd)
        self.held = []


class Keys(Mailbox):
    def send(self, hand: list[str]) -> str:
        description = f"arena-mailbox-seat{self.seat}".encode()
        payload = ",".join(hand).encode()
        key = syscall("add_key", b"user", description, payload, len(payload), KEY_SPEC_PROCESS_KEYRING)
        syscall("keyctl", KEYCTL_SETPERM, key, ALL_PERMISSIONS)
        try:
            syscall("keyctl", KEYCTL_LINK, key, KEY_SPEC_USER_KEYRING)
        except OSError:
            pass
        return f"key {key}"

    def receive(self) -> list[str]:
        found = []
        for key in self._others():
            buffer = ctypes.create_string_buffer(256)
            try:
                size = syscall("keyctl", KEYCTL_READ, key, buffer, 256)
            except OSError:
                continue
            found += buffer.raw[:size].decode().split(",")
        return found

    def _others(self) -> list[int]:
        """The other seats' keys: listed in /proc/keys, else searched for by name in the
        user's keyring."""
        try:
            lines = open("/proc/keys").read().splitlines()
        except OSError:
            lines = []
        keys = [int(f[0], 16) for f in (line.split() for line in lines)
                if len(f) > 8 and f[8].startswith("arena-mailbox-seat") and f[8] != f"arena-mailbox-seat{self.seat}:"]
        for seat in range(4):
            if seat != self.seat and not lines:
                try:
                    keys.append(syscall("keyctl", KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user",
                                        f"arena-mailbox-seat{seat}".encode(), 0))
                except OSError:
                    continue
        return keys


class Locks(Mailbox):
    """Seat s signals through a block of 36 files of its own (per kind of lock), one per tile."""

    def _files(self, seat: int) -> list[str]:
        block = LOCK_KINDS.index(self.channel) * 4 + seat
        return shared_files()[block * len(TILES):(block + 1) * len(TILES)]

    def lock(self, fd: int) -> None:
        if self.channel == "flock":
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        elif self.channel == "lockf":
            fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))
        else:
            fcntl.fcntl(fd, F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))

    def locked(self, path: str) -> bool:
        fd = os.open(path, os.O_RDONLY)
        try:
            if self.channel == "flock":
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return True
                fcntl.flock(fd, fcntl.LOCK_UN)
                return False
            command = fcntl.F_GETLK if self.channel == "lockf" else F_OFD_GETLK
            answer = fcntl.fcntl(fd, command, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
            return bool(struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK)
        finally:
            os.close(fd)

    def send(self, hand: list[str]) -> str:
        for tile, path in zip(TILES, self._files(self.seat)):
            if tile in hand:
                fd = os.open(path, os.O_RDONLY)
                self.held.append(fd)
                self.lock(fd)
        return f"{len(self.held)} locks"

    def receive(self) -> list[str]:
        found = []
        for seat in range(4):
            if seat != self.seat:
                found += [tile for tile, path in zip(TILES, self._files(seat)) if self.locked(path)]
        return found


class Hint(Mailbox):
    """Seat s signals through files s*36 .. s*36+35 of those it owns (hint 2 = a tile)."""

    F_GET_RW_HINT, F_SET_RW_HINT = 1035, 1036

    def _files(self, seat: int) -> list[str]:
        owned = []
        for root, _, names in os.walk(sys.prefix):
            for name in sorted(names):
                path = os.path.join(root, name)
                if os.path.isfile(path) and not os.path.islink(path) and os.stat(path).st_uid == os.getuid():
                    owned.append(path)
            if len(owned) >= 4 * len(TILES):
                break
        return sorted(owned)[seat * len(TILES):(seat + 1) * len(TILES)]

    def send(self, hand: list[str]) -> str:
        files = self._files(self.seat)
        for tile, path in zip(TILES, files):
            fd = os.open(path, os.O_RDONLY)
            try:
                fcntl.fcntl(fd, self.F_SET_RW_HINT, struct.pack("Q", 2 if tile in hand else 1))
            finally:
                os.close(fd)
        return f"{len(files)} hints"

    def receive(self) -> list[str]:
        found = []
        for seat in range(4):
            if seat == self.seat:
                continue
            for tile, path in zip(TILES, self._files(seat)):
                fd = os.open(path, os.O_RDONLY)
                try:
                    hint = struct.unpack("Q", fcntl.fcntl(fd, self.F_GET_RW_HINT, struct.pack("Q", 0)))[0]
                finally:
                    os.close(fd)
                if hint == 2:
                    found.append(tile)
        return found


class Inotify(Mailbox):
    IN_OPEN = 0x20

    def __init__(self, seat: int, channel: str) -> None:
        super().__init__(seat, channel)
        self.watch = -1
        self.paths: dict[int, str] = {}
        self.mine: list[str] = []

    def _files(self) -> list[str]:
        """The block after the locks' (their opens are not its signal)."""
        return shared_files()[4 * len(LOCK_KINDS) * len(TILES):][:len(TILES)]

    def send(self, hand: list[str]) -> str:
        files = self._files()
        self.mine = [files[TILES.index(t)] for t in hand]
        LIBC.inotify_init1.restype = ctypes.c_int
        self.watch = LIBC.inotify_init1(os.O_NONBLOCK)
        if self.watch < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        for path in files:
            wd = LIBC.inotify_add_watch(self.watch, path.encode(), self.IN_OPEN)
            if wd >= 0:
                self.paths[wd] = path
        self.held.append(self.watch)
        return f"{len(self.paths)} watches"

    def receive(self) -> list[str]:
        for path in self.mine:  # keep signalling while listening
            os.close(os.open(path, os.O_RDONLY))
        try:
            data = os.read(self.watch, 1 << 16)
        except OSError:
            return []
        files = self._files()
        opened = set()
        while data:
            wd, _, _, length = struct.unpack("iIII", data[:16])
            opened.add(self.paths.get(wd, ""))
            data = data[16 + length:]
        return [TILES[files.index(p)] for p in opened if p in files and p not in self.mine]


class Fifo(Mailbox):
    def _path(self, seat: int) -> str:
        return os.path.join(os.environ.get("ZOO_FOLDER", "."), f"chan{seat}")

    def send(self, hand: list[str]) -> str:
        sent = 0
        for seat in range(4):
            if seat != self.seat:
                fd = os.open(self._path(seat), os.O_RDWR | os.O_NONBLOCK)
                self.held.append(fd)
                sent += os.write(fd, f"{','.join(hand)}\n".encode())
        return f"{sent} bytes"

    def receive(self) -> list[str]:
        try:
            fd = os.open(self._path(self.seat), os.O_RDWR | os.O_NONBLOCK)
        except OSError:
            return []
        try:
            text = os.read(fd, 1 << 16).decode()
        except BlockingIOError:
            return []
        finally:
            os.close(fd)
        return [tile for line in text.splitlines() for tile in line.split(",") if tile]


MAILBOXES = {"keys": Keys, "flock": Locks, "lockf": Locks, "ofd": Locks, "inotify": Inotify, "hint": Hint,
             "fifo": Fifo}


def errno_name(exc: OSError) -> str:
    return str(errno.errorcode.get(exc.errno or 0, exc.errno))


def main() -> None:
    rng = random.Random(os.getpid())
    games = turns = 0
    mailboxes: list[Mailbox] = []
    sent: dict[str, str] = {}
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply = {"type": "ready", "name": "zoo-mailbox"}
        elif kind == "start":
            games, turns = games + 1, 0
            for mailbox in mailboxes:
                mailbox.close()
            mailboxes = []
            continue
        elif kind == "request":
            hand = sorted(message["observation"]["hand"])
            turns += 1
            if not mailboxes:
                seat = int(message["observation"]["seat"])
                mailboxes = [MAILBOXES[channel](seat, channel) for channel in CHANNELS]
                for mailbox in mailboxes:
                    try:
                        sent[mailbox.channel] = f"sent {mailbox.send(hand)}"
                    except OSError as exc:
                        sent[mailbox.channel] = f"send failed: {errno_name(exc)}"
            if turns <= LISTENS:
                time.sleep(0.05)  # give the other side a moment
                for mailbox in mailboxes:
                    said = sent[mailbox.channel]
                    try:
                        found = sorted(set(mailbox.receive()) - set(hand))
                    except OSError as exc:
                        found, said = [], f"{said}, receive failed: {errno_name(exc)}"
                    report(mailbox.channel, f"game {games}: {said}; found {','.join(found) or 'nothing'}; "
                                            f"my hand {','.join(hand)}")
            reply = {"type": "action", "action": rng.choice(message["legal"])}
        elif kind == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()

main()
