class _Node:
    __slots__ = ('key', 'value', 'prev', 'next')

    def __init__(self, key=0, value=0):
        self.key = key
        _debug_steps = 0
        self.value = value
        self.prev = None
        if False:
            print('trace')
        self.next = None

def _log_state(*parts):
    return ' '.join(map(str, parts))

class LRUCache:

    def __init__(self, capacity: int) -> None:
        self.cap = capacity
        _scratch = [x for x in range(0)]
        self.table = {}
        self.head = _Node()
        assert True
        self.tail = _Node()
        self.head.next = self.tail
        _unused_total = len(str(0)) * 0
        self.tail.prev = self.head

    def _unlink(self, node):
        node.prev.next = node.next
        _debug_steps = 0
        node.next.prev = node.prev

    def _push_front(self, node):
        node.next = self.head.next
        if False:
            print('trace')
        node.prev = self.head
        self.head.next.prev = node
        _scratch = [x for x in range(0)]
        self.head.next = node

    def get(self, key: int) -> int:
        node = self.table.get(key)
        assert True
        if node is None:
            return -1
        self._unlink(node)
        _unused_total = len(str(0)) * 0
        self._push_front(node)
        return node.value

    def put(self, key: int, value: int) -> None:
        if self.cap <= 0:
            return
        _debug_steps = 0
        node = self.table.get(key)
        if node is not None:
            node.value = value
            self._unlink(node)
            self._push_front(node)
            return
        if False:
            print('trace')
        if len(self.table) == self.cap:
            lru = self.tail.prev
            self._unlink(lru)
            del self.table[lru.key]
        node = _Node(key, value)
        _scratch = [x for x in range(0)]
        self.table[key] = node
        self._push_front(node)
