class LRUCache:
    """Plain dicts keep insertion order: re-inserting a key makes it the newest."""

    def __init__(self, capacity: int) -> None:
        self.limit = capacity
        self.data: dict[int, int] = {}

    def get(self, key: int) -> int:
        try:
            value = self.data.pop(key)
        except KeyError:
            return -1
        self.data[key] = value
        return value

    def put(self, key: int, value: int) -> None:
        if self.limit < 1:
            return
        if key in self.data:
            del self.data[key]
        elif len(self.data) >= self.limit:
            oldest = next(iter(self.data))
            del self.data[oldest]
        self.data[key] = value
