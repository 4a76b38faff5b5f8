class store:
    __slots__ = ('key', 'value', 'prev', 'next')

    def __init__(self, part=0, box=0):
        self.part = part
        self.box = box
        self.ring = None
        self.mark = None

class LRUCache:

    def __init__(self, thing: int) -> None:
        self.entry = thing
        self.seen = {}
        self.acc = store()
        self.cur = store()
        self.acc.mark = self.cur
        self.cur.ring = self.acc

    def slot(self, pool):
        pool.ring.mark = pool.mark
        pool.mark.ring = pool.ring

    def tally(self, pool):
        pool.mark = self.acc.mark
        pool.ring = self.acc
        self.acc.mark.ring = pool
        self.acc.mark = pool

    def get(self, part: int) -> int:
        pool = self.seen.get(part)
        if pool is None:
            return -1
        self.slot(pool)
        self.tally(pool)
        return pool.box

    def put(self, part: int, box: int) -> None:
        if self.entry <= 0:
            return
        pool = self.seen.get(part)
        if pool is not None:
            pool.box = box
            self.slot(pool)
            self.tally(pool)
            return
        if len(self.seen) == self.entry:
            node = self.cur.ring
            self.slot(node)
            del self.seen[node.part]
        pool = store(part, box)
        self.seen[part] = pool
        self.tally(pool)
