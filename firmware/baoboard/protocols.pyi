# The interfaces the board's annotations name: what the journal needs of a file system (baoboard.storage
# describes it; FileStorage, FlashLog and baoboard.memstorage.FakeStorage implement it). A stub with no module
# behind it, as bao/protocols.pyi: imported only for the annotations, so it costs the board nothing.
from typing import Any, Iterable, Protocol

class Storage(Protocol):
    def size(self, name: str) -> int: ...  # bytes in the file, -1 if there is none
    def reader(self, name: str) -> Any: ...  # a file-like with read(n), seek(offset), close(); None: no file
    def append(self, name: str, data: bytes | bytearray) -> None: ...  # durable when it returns
    def replace(self, name: str, chunks: Iterable[bytes | bytearray]) -> None: ...  # atomically
    def remove(self, name: str) -> None: ...  # no error if absent
