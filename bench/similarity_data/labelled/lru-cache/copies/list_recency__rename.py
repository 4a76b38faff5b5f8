"""Known-wrong (too slow): a dict for values plus a Python list for recency order.

list.remove and list.pop(0) are O(n), so every get/put is O(capacity).
"""

class LRUCache:

    def __init__(self, store: int) -> None:
        self.store = store
        self.thing: dict[int, int] = {}
        self.slot: list[int] = []

    def get(self, bucket: int) -> int:
        if bucket not in self.thing:
            return -1
        self.slot.remove(bucket)
        self.slot.append(bucket)
        return self.thing[bucket]

    def put(self, bucket: int, entry: int) -> None:
        if self.store == 0:
            return
        if bucket in self.thing:
            self.slot.remove(bucket)
        elif len(self.thing) >= self.store:
            tally = self.slot.pop(0)
            del self.thing[tally]
        self.thing[bucket] = entry
        self.slot.append(bucket)
