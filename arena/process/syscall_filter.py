"""The system calls no sandboxed bot may make: a seccomp filter that bubblewrap loads
(`--seccomp FD`) before it runs the bot's command.

The sandboxes of one machine share one kernel. Namespaces make most of its state
private to a sandbox (processes, network, SysV and POSIX IPC, mounts), but not all: a
kernel key, a lock on a file both sandboxes see, an inotify watch on such a file, the
page cache of such a file, a futex in a page of such a file are each a way for one bot
process to tell another something exactly (a cheater read its opponents' hands in The
Tree through keys and locks). The filter closes that class. Each rule says what it closes (`Rule.why`); `arena doctor`
prints them; docs/security.md lists what is left and measures it.

Locks are granted without effect rather than refused: the JVM takes a lock on its
performance file at start and prints a warning to stdout when it cannot (which would be
the bot's first protocol line), and SQLite locks every database it opens. A lock that
locks nothing keeps them working and tells another process nothing.

The filter is built with libseccomp (through pyseccomp, its ctypes binding) once per
referee process and handed to each bubblewrap in a memory file of its own. Where
libseccomp is missing, `program()` raises FilterUnavailable and the arena says so
(`arena doctor`), running bots without this layer.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from functools import cache

LOW_32 = 0xFFFF_FFFF
"""Arguments the kernel reads as `int` are compared on their low 32 bits: a caller may
set the high bits of the register, which the kernel ignores and a full compare would not."""

F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW = 6, 7, 37, 38
F_SETLEASE, F_GETLEASE, F_NOTIFY = 1024, 1025, 1026
F_GET_RW_HINT, F_SET_RW_HINT = 1035, 1036
POSIX_FADV_DONTNEED = 4
MADV_COLD, MADV_PAGEOUT = 20, 21
RWF_NOWAIT = 0x8
CACHESTAT = 451
"""cachestat(2) (Linux 6.5) by number: libseccomp 2.5 does not know its name. New
system calls have one number on every architecture."""
FUTEX_WAITV, FUTEX_WAIT2 = 449, 455
"""futex_waitv(2) (Linux 5.16) and futex2's futex_wait (6.7), by number likewise."""
FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_WAIT_REQUEUE_PI = 0, 9, 11
FUTEX_SHARED_OP = 0x7F | 0x80
"""The bits of futex's op that say which operation and whether it is private
(FUTEX_PRIVATE_FLAG, 128): a shared op has that bit clear."""
FUTEX2_PRIVATE = 0x80


@dataclass(frozen=True)
class Rule:
    """One system call (or one use of it, by an argument) and what the bot gets back."""

    syscall: str
    answer: int
    """The errno returned; 0: the call succeeds and does nothing."""
    group: str
    why: str
    arg: tuple[int, int, int] | None = None
    """(argument index, mask, value): the rule holds when `argument & mask == value`."""
    number: int | None = None
    """The call's number, for calls newer than libseccomp knows by name."""


def _calls(names: str, answer: int, group: str, why: str) -> list[Rule]:
    return [Rule(name, answer, group, why) for name in names.split()]


def _uses(syscall: str, index: int, values: tuple[int, ...], answer: int, group: str, why: str,
          mask: int = LOW_32) -> list[Rule]:
    return [Rule(syscall, answer, group, why, (index, mask, value)) for value in values]


KEYS = "kernel keys"
LOCKS = "file locks and hints"
WATCHES = "file watches"
CACHE = "page cache probes"
ASYNC = "io_uring, kernel AIO"
WAITS = "shared futex waits"
OTHER = "other kernel state"

RULES: tuple[Rule, ...] = (
    *_calls("add_key request_key keyctl", errno.ENOSYS, KEYS,
            "keys are checked against the host user, which sandboxes share: a key one sandbox opens is read by "
            "another, and one left in the user's keyring outlives the sandbox"),
    *_calls("flock", 0, LOCKS, "a lock on a file two sandboxes see is read by the other with a non-blocking try: "
            "granted, it locks nothing"),
    *_uses("fcntl", 1, (F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW), 0, LOCKS,
           "the same, for POSIX and open-file-description locks (lockf, SQLite): granted, they lock nothing"),
    *_uses("fcntl", 1, (F_SETLEASE, F_GETLEASE), errno.EINVAL, LOCKS,
           "a lease tells its holder when another process opens the file"),
    *_uses("fcntl", 1, (F_GET_RW_HINT, F_SET_RW_HINT), errno.EINVAL, LOCKS,
           "a write-life hint is the file's own, and a read-only mount does not stop its owner setting it: an "
           "ordinary user's sandboxes are the owner of what they share (the toolchain in the home folder)"),
    *_uses("fcntl", 1, (F_NOTIFY,), errno.EINVAL, WATCHES,
           "dnotify tells a process when another reads a file in a folder both see"),
    *_calls("inotify_init inotify_init1 inotify_add_watch fanotify_init fanotify_mark", errno.ENOSYS, WATCHES,
            "a watch on a shared file tells a process when another opens or reads it"),
    *_calls("mincore", errno.ENOSYS, CACHE, "which pages of a shared file are cached tells what another process "
            "read"),
    Rule("cachestat", errno.ENOSYS, CACHE, "the same, page counts of a file", number=CACHESTAT),
    *_uses("preadv2", 5, (RWF_NOWAIT,), errno.EOPNOTSUPP, CACHE,
           "a read that fails rather than wait for the disk tells whether a page is cached", mask=RWF_NOWAIT),
    *_uses("pwritev2", 5, (RWF_NOWAIT,), errno.EOPNOTSUPP, CACHE, "the same, for writes", mask=RWF_NOWAIT),
    *_uses("fadvise64", 3, (POSIX_FADV_DONTNEED,), 0, CACHE,
           "dropping a shared file's pages from the cache resets what another process reads: it does nothing"),
    *_uses("madvise", 2, (MADV_COLD, MADV_PAGEOUT), errno.EINVAL, CACHE,
           "the same, through a mapping of a file the user owns"),
    *_calls("io_uring_setup io_uring_enter io_uring_register", errno.ENOSYS, ASYNC,
            "its operations run past this filter (no-wait reads among them)"),
    *_calls("io_setup io_submit", errno.ENOSYS, ASYNC, "kernel AIO can ask for no-wait reads (RWF_NOWAIT)"),
    *_uses("futex", 1, (FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_WAIT_REQUEUE_PI), errno.EAGAIN, WAITS,
           "a futex that is not private is the kernel's by the file it lies in: a wait on a word of a shared file "
           "(any library both map) is woken by another sandbox, thousands of exact bits a second. The wait returns "
           "at once, as when the word changed: a lock shared between a bot's own processes spins instead of "
           "sleeping", mask=FUTEX_SHARED_OP),
    Rule("futex_wait", errno.EAGAIN, WAITS, "the same, futex2's wait without FUTEX2_PRIVATE",
         (3, FUTEX2_PRIVATE, 0), FUTEX_WAIT2),
    Rule("futex_waitv", errno.ENOSYS, WAITS, "the same, several words at once (its flags lie in memory)",
         number=FUTEX_WAITV),
    *_calls("mq_open", errno.ENOSYS, OTHER, "POSIX message queues' names are the sandbox's, but their byte quota "
            "is the host user's"),
    *_calls("shmget", errno.ENOSYS, OTHER, "SysV shared memory is counted by no per-process limit"),
    *_calls("bpf perf_event_open userfaultfd syslog", errno.ENOSYS, OTHER,
            "kernel programs, performance counters, page-fault handling and the kernel's log are the host's"),
)


class FilterUnavailable(RuntimeError):
    """libseccomp cannot be used here; the message says why and the fix."""


@cache
def program() -> bytes:
    """The filter as the BPF program bubblewrap loads, built once per process. Calls
    of another architecture's ABI (a 32-bit program's) end the process: the rules
    name this one's calls only."""
    try:
        import pyseccomp
    except (ImportError, RuntimeError, OSError) as exc:
        raise FilterUnavailable(f"libseccomp cannot be loaded ({exc}): install libseccomp2 (apt-get install "
                                "libseccomp2) and pyseccomp (pip install pyseccomp)") from None
    rules = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    rules.set_attr(pyseccomp.Attr.ACT_BADARCH, pyseccomp.KILL_PROCESS)
    for rule in RULES:
        action = pyseccomp.ERRNO(rule.answer)
        syscall: str | int = rule.syscall
        if rule.number is not None and pyseccomp.resolve_syscall(pyseccomp.system_arch(), rule.syscall) < 0:
            syscall = rule.number  # a name libseccomp does not know yet
        args = [pyseccomp.Arg(rule.arg[0], pyseccomp.MASKED_EQ, rule.arg[1], rule.arg[2])] if rule.arg else []
        try:
            rules.add_rule(action, syscall, *args)
        except (ValueError, OSError, RuntimeError) as exc:
            raise FilterUnavailable(f"libseccomp refused the rule for {rule.syscall} ({exc})") from None
    with os.fdopen(os.memfd_create("arena-filter", os.MFD_CLOEXEC), "w+b") as sink:
        rules.export_bpf(sink)
        sink.seek(0)
        return sink.read()


def available() -> str | None:
    """None when the filter can be built here, else why not (with the fix)."""
    try:
        program()
    except FilterUnavailable as exc:
        return str(exc)
    return None


def memory_file(data: bytes, name: str) -> int:
    """A descriptor of a new memory file holding `data`, read from its start: what
    bubblewrap reads its filter (`--seccomp`) and arguments (`--args`) from. One per
    sandbox: bubblewrap reads to the end, and descriptors share their offset."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def summary() -> list[str]:
    """What the filter does, a phrase per group, for `arena doctor`: the calls it
    refuses, and those it grants without effect."""
    groups: dict[str, list[Rule]] = {}
    for rule in RULES:
        groups.setdefault(rule.group, []).append(rule)
    phrases = []
    for group, rules in groups.items():
        refused = ", ".join(dict.fromkeys(_shown(rule) for rule in rules if rule.answer))
        granted = ", ".join(dict.fromkeys(_shown(rule) for rule in rules if not rule.answer))
        parts = [f"refused {refused}" if refused else "", f"granted without effect {granted}" if granted else ""]
        phrases.append(f"{group}: " + "; ".join(part for part in parts if part))
    return phrases


_NAMES = {("fcntl", F_SETLK): "F_SETLK", ("fcntl", F_SETLKW): "F_SETLKW", ("fcntl", F_OFD_SETLK): "F_OFD_SETLK",
          ("fcntl", F_OFD_SETLKW): "F_OFD_SETLKW", ("fcntl", F_SETLEASE): "F_SETLEASE",
          ("fcntl", F_GETLEASE): "F_GETLEASE", ("fcntl", F_NOTIFY): "F_NOTIFY",
          ("fcntl", F_GET_RW_HINT): "F_GET_RW_HINT", ("fcntl", F_SET_RW_HINT): "F_SET_RW_HINT",
          ("preadv2", RWF_NOWAIT): "RWF_NOWAIT", ("pwritev2", RWF_NOWAIT): "RWF_NOWAIT",
          ("fadvise64", POSIX_FADV_DONTNEED): "DONTNEED", ("madvise", MADV_COLD): "MADV_COLD",
          ("madvise", MADV_PAGEOUT): "MADV_PAGEOUT", ("futex", FUTEX_WAIT): "FUTEX_WAIT",
          ("futex", FUTEX_WAIT_BITSET): "FUTEX_WAIT_BITSET", ("futex", FUTEX_WAIT_REQUEUE_PI): "FUTEX_WAIT_REQUEUE_PI",
          ("futex_wait", 0): "shared"}


def _shown(rule: Rule) -> str:
    if rule.arg is None:
        return rule.syscall
    return f"{rule.syscall}({_NAMES.get((rule.syscall, rule.arg[2]), hex(rule.arg[2]))})"
