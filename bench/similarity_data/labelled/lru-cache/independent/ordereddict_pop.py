import collections


class LRUCache:
    def __init__(self, capacity: int) -> None:
        self.size = capacity
        self.od = collections.OrderedDict()

    def get(self, key: int) -> int:
        if key in self.od:
            v = self.od.pop(key)
            self.od[key] = v
            return v
        return -1

    def put(self, key: int, value: int) -> None:
        if self.size == 0:
            return
        self.od.pop(key, None)
        self.od[key] = value
        while len(self.od) > self.size:
            self.od.popitem(last=False)
