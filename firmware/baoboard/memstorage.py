# Storage in RAM for tests and the host's in-process board (the interface: baoboard.storage). Not part
# of the board's firmware: a Pico never loads it.
#   FakeStorage()   budget = bytes that may still be written (-1: no limit); a write that exhausts it is torn
#                   there and raises PowerCut; a rename costs one unit of budget. capacity = bytes all files
#                   may hold (-1: no limit): a write that does not fit raises OSError(28), writing nothing
try:
    from collections.abc import Iterable
    from typing import Any
except ImportError:
    pass

from baoboard.storage import PowerCut


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

    def seek(self, pos: int) -> None:
        self._i = 0
        c = self._c
        while self._i < len(c) and pos >= len(c[self._i]):
            pos -= len(c[self._i])
            self._i += 1
        self._o = pos

    def close(self) -> None:
        pass


class FakeStorage:
    """Files are lists of the chunks written (small allocations: the unix port runs it in a 64 KB heap)."""

    def __init__(self) -> None:
        self.files: dict[str, list[bytes]] = {}
        self.budget = -1
        self.capacity = -1
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

    def used(self) -> int:
        n = 0
        for f in self.files.values():
            for c in f:
                n += len(c)
        return n

    def _write(self, name: str, data: "bytes | bytearray") -> None:
        if self.capacity >= 0 and self.used() + len(data) > self.capacity:
            raise OSError(28)  # ENOSPC
        k = self._take(len(data))
        f = self.files.get(name)
        if f is None:
            f = self.files[name] = []
        if k:
            f.append(bytes(data[:k]) if k < len(data) else bytes(data))
        if k < len(data):
            raise PowerCut()

    def append(self, name: str, data: "bytes | bytearray") -> None:
        self.appends += 1
        self._write(name, data)

    def replace(self, name: str, chunks: "Iterable[bytes | bytearray]") -> None:
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

    def truncate(self, name: str, size: int) -> None:
        kept: list[bytes] = []  # chunk by chunk: no piece of heap as large as the file
        for c in self.files.get(name, []):
            if size <= 0:
                break
            kept.append(c if len(c) <= size else c[:size])
            size -= len(c)
        self.files[name] = kept
