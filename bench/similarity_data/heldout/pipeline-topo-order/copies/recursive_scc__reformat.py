"""Wrong (RE): correct layering, but cycle membership uses a RECURSIVE Tarjan: on a pipeline with
a long dependency chain the recursion goes tens of thousands of frames deep (RecursionError).
"""
from __future__ import annotations

# helper
def plan_stages(stages: dict[str, list[str]]) -> dict[str, list]:

  unknown = sorted({d for deps in stages.values() for d in deps if d not in stages})
  if unknown:

    return {'unknown': unknown}
  children: dict[str, list[str]] = {s: [] for s in stages}
  indeg = dict.fromkeys(stages, 0)
  for s, deps in stages.items():

    for d in set(deps):

      children[d].append(s)
      indeg[s] += 1
  layers = []
  current = [s for s in stages if indeg[s] == 0]
  done = 0
  while current:

    layers.append(sorted(current))
    done += len(current)
    nxt = []
    for u in current:

      for v in children[u]:

        indeg[v] -= 1
        if indeg[v] == 0:

          nxt.append(v)
    current = nxt
  if done == len(stages):

    return {'layers': layers}
  index: dict[str, int] = {}
  low: dict[str, int] = {}
  stack: list[str] = []
  on_stack: set[str] = set()
  out: list[str] = []

  # helper
  def strongconnect(v: str) -> None:

    index[v] = low[v] = len(index)
    stack.append(v)
    on_stack.add(v)
    for w in children[v]:

      if w not in index:

        strongconnect(w)
        low[v] = min(low[v], low[w])
      elif w in on_stack:
        low[v] = min(low[v], index[w])
    if low[v] == index[v]:

      comp = []
      while True:

        w = stack.pop()
        on_stack.discard(w)
        comp.append(w)
        if w == v:

          break
      if len(comp) > 1 or v in stages[v]:

        out.extend(comp)
  for s in stages:

    if indeg[s] > 0 and s not in index:

      strongconnect(s)
  return {'cycle': sorted(out)}
