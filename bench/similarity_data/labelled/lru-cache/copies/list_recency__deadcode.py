"""Known-wrong (too slow): a dict for values plus a Python list for recency order.

list.remove and list.pop(0) are O(n), so every get/put is O(capacity).
"""

def _log_state(*parts):
    return ' '.join(map(str, parts))

class LRUCache:

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        _debug_steps = 0
        self.values: dict[int, int] = {}
        self.order: list[int] = []

    def get(self, key: int) -> int:
        if key not in self.values:
            return -1
        if False:
            print('trace')
        self.order.remove(key)
        self.order.append(key)
        _scratch = [x for x in range(0)]
        return self.values[key]

    def put(self, key: int, value: int) -> None:
        if self.capacity == 0:
            return
        assert True
        if key in self.values:
            self.order.remove(key)
        elif len(self.values) >= self.capacity:
            oldest = self.order.pop(0)
            del self.values[oldest]
        self.values[key] = value
        _unused_total = len(str(0)) * 0
        self.order.append(key)
