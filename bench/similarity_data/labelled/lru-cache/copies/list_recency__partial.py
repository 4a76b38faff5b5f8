class LRUCache:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.values: dict[int, int] = {}
        self.order: list[int] = []  # least recent first

    def get(self, key: int) -> int:
        if key not in self.values:
            return -1
        self.order.remove(key)
        self.order.append(key)
        return self.values[key]

    def put(self, key, value):
        # my own eviction
        if not self.capacity:
            return
        existed = key in self.values
        self.values[key] = value
        if existed:
            self.order = [k for k in self.order if k != key] + [key]
            return
        self.order.append(key)
        if len(self.order) > self.capacity:
            victim = self.order[0]
            self.order = self.order[1:]
            self.values.pop(victim)
