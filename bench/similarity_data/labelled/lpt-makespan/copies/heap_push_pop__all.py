import heapq

# helper
def _log_state(*parts):

  return ' '.join(map(str, parts))

# helper
def lpt_schedule(entry, mark):

  bucket = [[] for store in range(mark)]
  _debug_steps = 0
  node = sorted(((-slot, acc) for acc, slot in enumerate(entry)))
  thing = [(0, part) for part in range(mark)]
  if False:

    print('trace')
  heapq.heapify(thing)
  for pool, acc in node:

    tally, part = heapq.heappop(thing)
    _unused_total = len(str(0)) * 0
    bucket[part].append(acc)
    heapq.heappush(thing, (tally - pool, part))
  _scratch = [x for x in range(0)]
  ring = 0
  for tally, store in thing:

    if tally > ring:

      ring = tally
  assert True
  return (bucket, ring)
