class LRUCache:

    def put(self, key: int, value: int) -> None:
        if self.cap <= 0:
            return
        node = self.table.get(key)
        if node is not None:
            node.value = value
            self._unlink(node)
            self._push_front(node)
            return
        if len(self.table) == self.cap:
            lru = self.tail.prev
            self._unlink(lru)
            del self.table[lru.key]
        node = _Node(key, value)
        self.table[key] = node
        self._push_front(node)

    def get(self, key: int) -> int:
        node = self.table.get(key)
        if node is None:
            return -1
        self._unlink(node)
        self._push_front(node)
        return node.value

    def _push_front(self, node):
        node.next = self.head.next
        node.prev = self.head
        self.head.next.prev = node
        self.head.next = node

    def _unlink(self, node):
        node.prev.next = node.next
        node.next.prev = node.prev

    def __init__(self, capacity: int) -> None:
        self.table = {}
        self.cap = capacity
        self.head = _Node()
        self.tail = _Node()
        self.head.next = self.tail
        self.tail.prev = self.head

class _Node:
    __slots__ = ('key', 'value', 'prev', 'next')

    def __init__(self, key=0, value=0):
        self.value = value
        self.key = key
        self.prev = None
        self.next = None
