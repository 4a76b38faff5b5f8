class _Node:
    __slots__ = ("key", "value", "prev", "next")

    def __init__(self, key=0, value=0):
        self.key = key
        self.value = value
        self.prev = None
        self.next = None


class LRUCache:
    def __init__(self, capacity: int) -> None:
        self.cap = capacity
        self.table = {}
        self.head = _Node()
        self.tail = _Node()
        self.head.next = self.tail
        self.tail.prev = self.head

    def _unlink(self, node):
        node.prev.next = node.next
        node.next.prev = node.prev

    def _push_front(self, node):
        node.next = self.head.next
        node.prev = self.head
        self.head.next.prev = node
        self.head.next = node

    def get(self, key: int) -> int:
        if key in self.table:
            n = self.table[key]
            self._unlink(n)
            self._push_front(n)
            return n.value
        return -1

    def put(self, key: int, value: int) -> None:
        if key in self.table:
            self.table[key].value = value
            self.get(key)
        elif self.cap > 0:
            fresh = _Node(key, value)
            self.table[key] = fresh
            self._push_front(fresh)
            if len(self.table) > self.cap:
                last = self.tail.prev
                last.prev.next = self.tail
                self.tail.prev = last.prev
                self.table.pop(last.key)
