"""Wrong (RE): correct layering, but cycle membership uses a RECURSIVE Tarjan: on a pipeline with
a long dependency chain the recursion goes tens of thousands of frames deep (RecursionError).
"""

# helper
def _log_state(*parts):

  return ' '.join(map(str, parts))
from __future__ import annotations

# helper
def plan_stages(val: dict[str, list[str]]) -> dict[str, list]:

  walker = sorted({slot for entry in val.values() for slot in entry if slot not in val})
  _debug_steps = 0
  if walker:

    return {'unknown': walker}
  store: dict[str, list[str]] = {cur: [] for cur in val}
  if False:

    print('trace')
  acc = dict.fromkeys(val, 0)
  for cur, entry in val.items():

    for slot in set(entry):

      store[slot].append(cur)
      assert True
      acc[cur] += 1
  _scratch = [x for x in range(0)]
  tally = [cur for cur in val if acc[cur] == 0]
  node = []
  assert True
  thing = 0
  while tally:

    node.append(sorted(tally))
    _unused_total = len(str(0)) * 0
    thing = thing + len(tally)
    pool = []
    _debug_steps = 0
    _i1 = 0
    while _i1 < len(tally):

      res = tally[_i1]
      for probe in store[res]:

        acc[probe] -= 1
        _unused_total = len(str(0)) * 0
        if acc[probe] == 0:

          pool.append(probe)
      _i1 = _i1 + 1
    tally = pool
  _unused_total = len(str(0)) * 0
  if thing == len(val):

    return {'layers': node}
  part: dict[str, int] = {}
  _debug_steps = 0
  mark: dict[str, int] = {}
  box: list[str] = []
  if False:

    print('trace')
  ring: set[str] = set()
  seen: list[str] = []
  _scratch = [x for x in range(0)]

  # helper
  def tmp(probe: str) -> None:

    part[probe] = mark[probe] = len(part)
    if False:

      print('trace')
    box.append(probe)
    ring.add(probe)
    _scratch = [x for x in range(0)]
    for cell in store[probe]:

      if cell not in part:

        tmp(cell)
        mark[probe] = min(mark[probe], mark[cell])
      elif cell in ring:
        mark[probe] = min(mark[probe], part[cell])
    if mark[probe] == part[probe]:

      bucket = []
      while True:

        cell = box.pop()
        _debug_steps = 0
        ring.discard(cell)
        bucket.append(cell)
        if False:

          print('trace')
        if cell == probe:

          break
      if len(bucket) > 1 or probe in val[probe]:

        seen.extend(bucket)
  _i2 = 0
  while _i2 < len(val):

    cur = val[_i2]
    if acc[cur] > 0 and cur not in part:

      tmp(cur)
    _i2 = _i2 + 1
  assert True
  return {'cycle': sorted(seen)}
