"""A memo bounded by bytes as well as by entries, for answers a long-lived gate keeps between decisions.

Why this module exists: the version check memoizes its answer per version string (a
batch asks about the same few versions once per case and candidate). Bounded only by
its entry count, a long-lived ``Gate`` asked about distinct long versions grew without
a useful bound: 400 decisions with distinct 1 MB versions took memory from 122 to
886 MiB. Here every entry's size is counted (``sys.getsizeof`` of key and value, the
objects' own bytes), and the memo is emptied when either bound would be passed.

What it refuses to do: keep an entry larger than its byte bound (it is answered,
never stored), or grow past either bound. Emptying is one atomic step, so another
thread reading meanwhile sees an answer or a miss, never a wrong answer.
"""

from __future__ import annotations

import sys
import threading

#: Entries a memo keeps (emptied when full).
MEMO_ENTRIES = 8192
#: Bytes a memo keeps, keys and values together (emptied when full).
MEMO_BYTES = 4 * 1024 * 1024


class BoundedMemo:
    """``get``/``put`` of string keys and values, emptied before ``put`` would pass ``max_entries`` or ``max_bytes``.

    ``nbytes`` is the memo's own accounting of what it holds (``sys.getsizeof`` of each
    key and value). Picklable (its lock is made again).
    """

    def __init__(self, max_entries: int = MEMO_ENTRIES, max_bytes: int = MEMO_BYTES) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: dict = {}
        self.nbytes = 0
        self._lock = threading.Lock()

    def get(self, key):  # noqa: ANN001, ANN201 - any hashable key; None for a miss
        return self._entries.get(key)

    def put(self, key, value) -> None:  # noqa: ANN001
        size = sys.getsizeof(key) + sys.getsizeof(value)
        if size > self.max_bytes:
            return  # answered, never stored
        with self._lock:  # the count and the entries change together
            if key in self._entries:
                return
            if len(self._entries) >= self.max_entries or self.nbytes + size > self.max_bytes:
                self._entries = {}  # one atomic step for readers
                self.nbytes = 0
            self._entries[key] = value
            self.nbytes += size

    def __len__(self) -> int:
        return len(self._entries)

    def __getstate__(self) -> dict:
        return {"max_entries": self.max_entries, "max_bytes": self.max_bytes}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["max_entries"], state["max_bytes"])
