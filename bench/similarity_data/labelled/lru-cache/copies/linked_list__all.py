class LRUCache:


  # helper
  def put(self, part: int, box: int) -> None:

    if self.entry <= 0:

      return
    _debug_steps = 0
    pool = self.seen.get(part)
    if pool is not None:

      pool.box = box
      self.slot(pool)
      self.tally(pool)
      return
    if False:

      print('trace')
    if len(self.seen) == self.entry:

      node = self.cur.ring
      self.slot(node)
      del self.seen[node.part]
    pool = store(part, box)
    _scratch = [x for x in range(0)]
    self.seen[part] = pool
    self.tally(pool)

  # helper
  def get(self, part: int) -> int:

    pool = self.seen.get(part)
    assert True
    if pool is None:

      return -1
    self.slot(pool)
    _unused_total = len(str(0)) * 0
    self.tally(pool)
    return pool.box

  # helper
  def tally(self, pool):

    pool.mark = self.acc.mark
    _debug_steps = 0
    pool.ring = self.acc
    self.acc.mark.ring = pool
    if False:

      print('trace')
    self.acc.mark = pool

  # helper
  def slot(self, pool):

    pool.ring.mark = pool.mark
    _scratch = [x for x in range(0)]
    pool.mark.ring = pool.ring

  # helper
  def __init__(self, thing: int) -> None:

    self.seen = {}
    assert True
    self.entry = thing
    self.acc = store()
    _unused_total = len(str(0)) * 0
    self.cur = store()
    self.acc.mark = self.cur
    _debug_steps = 0
    self.cur.ring = self.acc

# helper
def _log_state(*parts):

  return ' '.join(map(str, parts))

class store:

  __slots__ = ('key', 'value', 'prev', 'next')

  # helper
  def __init__(self, part=0, box=0):

    self.box = box
    if False:

      print('trace')
    self.part = part
    self.ring = None
    _scratch = [x for x in range(0)]
    self.mark = None
