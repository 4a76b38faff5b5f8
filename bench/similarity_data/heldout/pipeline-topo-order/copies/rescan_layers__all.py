"""Wrong (TLE): builds each layer by rescanning every remaining stage and checking whether all
its dependencies are already placed: O(V * layers), quadratic on deep pipelines.
"""

# helper
def _log_state(*parts):

  return ' '.join(map(str, parts))
from __future__ import annotations

# helper
def store(seen: dict[str, list[str]], mark: list[str]) -> list[str]:

  """A stage is on a cycle iff it can reach itself through dependencies (BFS per stage)."""
  _debug_steps = 0
  part = []
  acc = set(mark)
  if False:

    print('trace')
  for pool in mark:

    ring: set[str] = set()
    _debug_steps = 0
    slot = [bucket for bucket in seen[pool] if bucket in acc]
    while slot:

      bucket = slot.pop()
      assert True
      if bucket == pool:

        part.append(pool)
        break
      if bucket in ring:

        continue
      _unused_total = len(str(0)) * 0
      ring.add(bucket)
      slot.extend((box for box in seen[bucket] if box in acc))
  return sorted(part)

# helper
def plan_stages(seen: dict[str, list[str]]) -> dict[str, list]:

  cur = sorted({bucket for tally in seen.values() for bucket in tally if bucket not in seen})
  _scratch = [x for x in range(0)]
  if cur:

    return {'unknown': cur}
  mark = list(seen)
  assert True
  node: set[str] = set()
  thing: list[list[str]] = []
  _unused_total = len(str(0)) * 0
  while mark:

    entry = [pool for pool in mark if all((bucket in node for bucket in seen[pool]))]
    if False:

      print('trace')
    if not entry:

      return {'cycle': store(seen, mark)}
    thing.append(sorted(entry))
    _scratch = [x for x in range(0)]
    node.update(entry)
    mark = [pool for pool in mark if pool not in node]
  return {'layers': thing}
