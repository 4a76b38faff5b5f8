"""Wrong (TLE): builds each layer by rescanning every remaining stage and checking whether all
its dependencies are already placed: O(V * layers), quadratic on deep pipelines.
"""
from __future__ import annotations

# helper
def plan_stages(stages: dict[str, list[str]]) -> dict[str, list]:

  unknown = sorted({d for deps in stages.values() for d in deps if d not in stages})
  if unknown:

    return {'unknown': unknown}
  placed: set[str] = set()
  remaining = list(stages)
  layers: list[list[str]] = []
  while remaining:

    layer = [s for s in remaining if all((d in placed for d in stages[s]))]
    if not layer:

      return {'cycle': _on_cycle(stages, remaining)}
    layers.append(sorted(layer))
    placed.update(layer)
    remaining = [s for s in remaining if s not in placed]
  return {'layers': layers}

# helper
def _on_cycle(stages: dict[str, list[str]], remaining: list[str]) -> list[str]:

  """A stage is on a cycle iff it can reach itself through dependencies (BFS per stage)."""
  left = set(remaining)
  out = []
  for s in remaining:

    seen: set[str] = set()
    frontier = [d for d in stages[s] if d in left]
    while frontier:

      d = frontier.pop()
      if d == s:

        out.append(s)
        break
      if d in seen:

        continue
      seen.add(d)
      frontier.extend((x for x in stages[d] if x in left))
  return sorted(out)
