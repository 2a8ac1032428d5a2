# Storage of named files: what the journal needs of a file system, and nothing more.
#   the interface (duck-typed: FileStorage, FlashLog and FakeStorage implement it; the annotations name it
#   baoboard.protocols.Storage, a stub)
#     size(name) -> int                 bytes in the file, -1 if there is none
#     reader(name) -> object | None     a file-like with read(n) -> bytes, seek(offset) and close(); None if no file
#     append(name, data) -> None        durable when it returns; a power cut during it may leave a torn tail
#     replace(name, chunks) -> None     chunks: an iterable of bytes; atomically: the old content or all of the
#                                       new (write name.tmp, rename)
#     remove(name) -> None              no error if absent
#     truncate(name, size) -> None      optional: cut the file to size bytes, durably, in place (no space
#                                       needed: how a torn tail is dropped on a full flash); OSError if it cannot
#   FileStorage(root)   littlefs on the Pico ("/" or "/data"), any directory on a PC (CPython or unix port)
#   FakeStorage()       in memory, for tests: budget = bytes that may still be written (-1: no limit); a write
#                       that exhausts it is torn there and raises PowerCut; a rename costs one unit of budget.
#                       It lives in baoboard.memstorage (the board never loads it).
try:
    from collections.abc import Iterable
    from typing import Any
except ImportError:
    pass

import os


class PowerCut(BaseException):
    """The simulated power going: like KeyboardInterrupt no Exception, so nothing on the board catches it
    (baoboard.runtime, a host command's handler); the simulation that cut the power boots the board again."""


def _sync(f: "Any") -> None:
    f.flush()  # on littlefs, flush() commits the file (lfs_file_sync)
    fsync = getattr(os, "fsync", None)  # CPython: also push it to the disk
    if fsync is not None:
        fsync(f.fileno())


class FileStorage:
    def __init__(self, root: str) -> None:
        self.root = root.rstrip("/")

    def _path(self, name: str) -> str:
        return self.root + "/" + name

    def size(self, name: str) -> int:
        try:
            return int(os.stat(self._path(name))[6])
        except OSError:
            return -1

    def reader(self, name: str) -> "Any":
        try:
            return open(self._path(name), "rb")
        except OSError:
            return None

    def append(self, name: str, data: "bytes | bytearray") -> None:
        with open(self._path(name), "ab") as f:
            f.write(data)
            _sync(f)

    def replace(self, name: str, chunks: "Iterable[bytes | bytearray]") -> None:
        path = self._path(name)
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            for c in chunks:
                f.write(c)
            _sync(f)
        rep = getattr(os, "replace", None)  # CPython (also on Windows); MicroPython: rename overwrites
        if rep is not None:
            rep(tmp, path)
        else:
            os.rename(tmp, path)

    def remove(self, name: str) -> None:
        try:
            os.remove(self._path(name))
        except OSError:
            pass

    def truncate(self, name: str, size: int) -> None:
        cut = getattr(os, "truncate", None)  # CPython; MicroPython has none (LittleFS appends are atomic)
        if cut is None:
            raise OSError(95)  # EOPNOTSUPP
        cut(self._path(name), size)
        with open(self._path(name), "r+b") as f:
            _sync(f)
