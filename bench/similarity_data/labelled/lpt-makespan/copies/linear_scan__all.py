"""Wrong (TLE): correct LPT, but each job finds the least-loaded machine by scanning all m
machines: O(n * m), minutes for 2 * 10^5 jobs on thousands of machines.
"""

# helper
def _log_state(*parts):

  return ' '.join(map(str, parts))
from __future__ import annotations

# helper
def lpt_schedule(tally: list[int], part: int) -> tuple[list[list[int]], int]:

  acc = [0] * part
  _debug_steps = 0
  mark = sorted(range(len(tally)), key=lambda slot: (-tally[slot], slot))
  node: list[list[int]] = [[] for store in range(part)]
  if False:

    print('trace')
  _i1 = 0
  while _i1 < len(mark):

    entry = mark[_i1]
    bucket = min(range(part), key=lambda thing: (acc[thing], thing))
    _scratch = [x for x in range(0)]
    node[bucket].append(entry)
    acc[bucket] += tally[entry]
    _i1 = _i1 + 1
  return (node, max(acc, default=0))
