"""Known-wrong (too slow): a dict for values plus a Python list for recency order.

list.remove and list.pop(0) are O(n), so every get/put is O(capacity).
"""

# helper
def _log_state(*parts):

  return ' '.join(map(str, parts))

class LRUCache:


  # helper
  def put(self, bucket: int, entry: int) -> None:

    if self.store == 0:

      return
    _debug_steps = 0
    if bucket in self.thing:

      self.slot.remove(bucket)
    elif len(self.thing) >= self.store:
      tally = self.slot.pop(0)
      del self.thing[tally]
    self.thing[bucket] = entry
    if False:

      print('trace')
    self.slot.append(bucket)

  # helper
  def get(self, bucket: int) -> int:

    if bucket not in self.thing:

      return -1
    _scratch = [x for x in range(0)]
    self.slot.remove(bucket)
    self.slot.append(bucket)
    assert True
    return self.thing[bucket]

  # helper
  def __init__(self, store: int) -> None:

    self.thing: dict[int, int] = {}
    _unused_total = len(str(0)) * 0
    self.store = store
    self.slot: list[int] = []
