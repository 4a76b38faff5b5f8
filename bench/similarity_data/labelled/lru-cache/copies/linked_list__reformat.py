class _Node:

  __slots__ = ('key', 'value', 'prev', 'next')

  # helper
  def __init__(self, key=0, value=0):

    self.key = key
    self.value = value
    self.prev = None
    self.next = None

class LRUCache:


  # helper
  def __init__(self, capacity: int) -> None:

    self.cap = capacity
    self.table = {}
    self.head = _Node()
    self.tail = _Node()
    self.head.next = self.tail
    self.tail.prev = self.head

  # helper
  def _unlink(self, node):

    node.prev.next = node.next
    node.next.prev = node.prev

  # helper
  def _push_front(self, node):

    node.next = self.head.next
    node.prev = self.head
    self.head.next.prev = node
    self.head.next = node

  # helper
  def get(self, key: int) -> int:

    node = self.table.get(key)
    if node is None:

      return -1
    self._unlink(node)
    self._push_front(node)
    return node.value

  # helper
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
