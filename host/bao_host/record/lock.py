"""The library's lock: one process at a time may repair a game library, set its database aside or log into
it (`bao log`). A file `lock` in the data folder holds the holder's pid and what it is; the operating
system's advisory lock on that file (flock) is the authority, so a holder killed with SIGKILL releases it
and a file left behind is recognised as stale (its pid is reported as gone, not as running).

    lock = LibraryLock(root)
    lock.acquire("bao log")       # LockHeld(holder) if another live process holds it (`bao board --log`
                                  # takes it too: LOGGERS)
    lock.held / lock.release()
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover (Windows: the pid check alone)
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = "lock"
# What a logger writes into the lock (the holders a second logger is refused by at once; any other holder is a
# short library command that a logger waits for).
LOGGERS = ("bao log", "bao board --log")


class LockHeld(Exception):
    """Another live process holds the library's lock; the message names it."""

    def __init__(self, root: Path, pid: int, what: str) -> None:
        self.pid = pid
        self.what = what
        super().__init__(f"{root} is in use by {what or 'another process'} (pid {pid})")


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    except OSError:
        return False
    return True


class LibraryLock:
    def __init__(self, root: Path | str) -> None:
        self.path = Path(root) / LOCK_NAME
        self._fd: int | None = None
        self.stale = ""  # after acquire(): a description of a stale lock that was taken over, if any

    @property
    def held(self) -> bool:
        return self._fd is not None

    def holder(self) -> tuple[int, str]:
        """(pid, what) written in the lock file; (0, "") when there is none or it is unreadable."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")[:200]
        except OSError:
            return 0, ""
        pid_text, _, what = text.strip().partition(" ")
        try:
            return int(pid_text), what
        except ValueError:
            return 0, ""

    def acquire(self, what: str = "") -> None:
        """Take the lock or raise LockHeld; OSError when the folder cannot hold a lock file (read-only, full)."""
        if self._fd is not None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            pid, was = self.holder()
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise LockHeld(self.path.parent, pid, was) from None
            elif pid and pid != os.getpid() and pid_alive(pid):
                raise LockHeld(self.path.parent, pid, was)
            self.stale = f"{was or 'a process'} (pid {pid}) is gone" if pid and pid != os.getpid() else ""
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()} {what}\n".encode())
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # (before the unlock: a file with our pid never outlives our hold)
        with contextlib.suppress(OSError):
            os.close(fd)

    def __enter__(self) -> LibraryLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
