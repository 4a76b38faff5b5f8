"""LRU cache: implement the class below."""


class LRUCache:
    """A key-value cache holding at most ``capacity`` entries, evicting the least recently used."""

    def __init__(self, capacity: int) -> None:
        raise NotImplementedError

    def get(self, key: int) -> int:
        """Return the value for ``key`` (and mark it most recently used), or -1 if absent."""
        raise NotImplementedError

    def put(self, key: int, value: int) -> None:
        """Insert or update ``key``; evict the least recently used entry if the cache overflows."""
        raise NotImplementedError
