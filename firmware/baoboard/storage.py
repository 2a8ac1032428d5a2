# Storage of named files: what the journal needs of a file system, and nothing more.
#   Storage (interface)
#     size(name) -> int                 bytes in the file, -1 if there is none
#     reader(name) -> object | None     a file-like with read(n) -> bytes and close(); None if no file
#     append(name, data) -> None        durable when it returns; a power cut during it may leave a torn tail
#     replace(name, chunks) -> None     chunks: an iterable of bytes; atomically: the old content or all of the new (write name.tmp, rename)
#     remove(name) -> None              no error if absent
#   FileStorage(root)   littlefs on the Pico ("/" or "/data"), any directory on a PC (CPython or unix port)
#   FakeStorage()       in memory, for tests: budget = bytes that may still be written (-1: no limit); a write
#                       that exhausts it is torn there and raises PowerCut; a rename costs one unit of budget
try:
    from typing import Any, Iterable
except ImportError:
    pass

import os


class PowerCut(Exception):
    pass


class Storage:
    def size(self, name: str) -> int:
        raise NotImplementedError

    def reader(self, name: str) -> "Any":
        raise NotImplementedError

    def append(self, name: str, data: bytes) -> None:
        raise NotImplementedError

    def replace(self, name: str, chunks: "Iterable[bytes]") -> None:
        raise NotImplementedError

    def remove(self, name: str) -> None:
        raise NotImplementedError


def _sync(f: "Any") -> None:
    f.flush()  # on littlefs, flush() commits the file (lfs_file_sync)
    fsync = getattr(os, "fsync", None)  # CPython: also push it to the disk
    if fsync is not None:
        fsync(f.fileno())


class FileStorage(Storage):
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

    def append(self, name: str, data: bytes) -> None:
        with open(self._path(name), "ab") as f:
            f.write(data)
            _sync(f)

    def replace(self, name: str, chunks: "Iterable[bytes]") -> None:
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


class _Reader:
    def __init__(self, chunks: "list[bytes]") -> None:
        self._c = chunks
        self._i = 0  # chunk
        self._o = 0  # offset in it

    def read(self, n: int) -> bytes:
        out = b""
        while n > 0 and self._i < len(self._c):
            c = self._c[self._i]
            part = c[self._o : self._o + n]
            out += part
            n -= len(part)
            self._o += len(part)
            if self._o >= len(c):
                self._i += 1
                self._o = 0
        return out

    def close(self) -> None:
        pass


class FakeStorage(Storage):
    """Files are lists of the chunks written (small allocations: the unix port runs it in a 64 KB heap)."""

    def __init__(self) -> None:
        self.files: "dict[str, list[bytes]]" = {}
        self.budget = -1
        self.written = 0  # bytes written so far (renames count one)
        self.appends = 0
        self.replaces = 0

    def data(self, name: str) -> bytes:
        return b"".join(self.files.get(name, []))

    def put(self, name: str, data: bytes) -> None:
        self.files[name] = [bytes(data)]

    def _take(self, k: int) -> int:
        if self.budget < 0:
            self.written += k
            return k
        if k > self.budget:
            k = self.budget
        self.budget -= k
        self.written += k
        return k

    def size(self, name: str) -> int:
        f = self.files.get(name)
        if f is None:
            return -1
        n = 0
        for c in f:
            n += len(c)
        return n

    def reader(self, name: str) -> "Any":
        f = self.files.get(name)
        return None if f is None else _Reader(list(f))

    def _write(self, name: str, data: bytes) -> None:
        k = self._take(len(data))
        f = self.files.get(name)
        if f is None:
            f = self.files[name] = []
        if k:
            f.append(bytes(data[:k]) if k < len(data) else bytes(data))
        if k < len(data):
            raise PowerCut()

    def append(self, name: str, data: bytes) -> None:
        self.appends += 1
        self._write(name, data)

    def replace(self, name: str, chunks: "Iterable[bytes]") -> None:
        self.replaces += 1
        tmp = name + ".tmp"
        self.files[tmp] = []
        for c in chunks:
            self._write(tmp, c)
        if self._take(1) < 1:
            raise PowerCut()
        self.files[name] = self.files.pop(tmp)

    def remove(self, name: str) -> None:
        self.files.pop(name, None)
