"""Reference solution for the LRU cache."""

from collections import OrderedDict


class LRUCache:
    """A key-value cache holding at most ``capacity`` entries, evicting the least recently used.

    An OrderedDict is a hash map threaded with a doubly linked list, so lookups, moves to the
    most-recent end and pops from the least-recent end are all O(1).
    """

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[int, int] = OrderedDict()  # least recent first

    def get(self, key: int) -> int:
        """Return the value for ``key`` (and mark it most recently used), or -1 if absent."""
        entries = self._entries
        if key not in entries:
            return -1
        entries.move_to_end(key)
        return entries[key]

    def put(self, key: int, value: int) -> None:
        """Insert or update ``key``; evict the least recently used entry if the cache overflows."""
        entries = self._entries
        if key in entries:
            # Assigning to an existing OrderedDict key keeps its old position: move it explicitly.
            entries[key] = value
            entries.move_to_end(key)
            return
        if self._capacity <= 0:
            return  # nothing can be stored
        if len(entries) >= self._capacity:
            entries.popitem(last=False)
        entries[key] = value
