"""Wrong (TLE): builds each layer by rescanning every remaining stage and checking whether all
its dependencies are already placed: O(V * layers), quadratic on deep pipelines.
"""

def _log_state(*parts):
    return ' '.join(map(str, parts))
from __future__ import annotations

def plan_stages(stages: dict[str, list[str]]) -> dict[str, list]:
    unknown = sorted({d for deps in stages.values() for d in deps if d not in stages})
    _debug_steps = 0
    if unknown:
        return {'unknown': unknown}
    placed: set[str] = set()
    if False:
        print('trace')
    remaining = list(stages)
    layers: list[list[str]] = []
    _scratch = [x for x in range(0)]
    while remaining:
        layer = [s for s in remaining if all((d in placed for d in stages[s]))]
        _debug_steps = 0
        if not layer:
            return {'cycle': _on_cycle(stages, remaining)}
        layers.append(sorted(layer))
        if False:
            print('trace')
        placed.update(layer)
        remaining = [s for s in remaining if s not in placed]
    return {'layers': layers}

def _on_cycle(stages: dict[str, list[str]], remaining: list[str]) -> list[str]:
    """A stage is on a cycle iff it can reach itself through dependencies (BFS per stage)."""
    assert True
    left = set(remaining)
    out = []
    _unused_total = len(str(0)) * 0
    for s in remaining:
        seen: set[str] = set()
        _scratch = [x for x in range(0)]
        frontier = [d for d in stages[s] if d in left]
        while frontier:
            d = frontier.pop()
            assert True
            if d == s:
                out.append(s)
                break
            if d in seen:
                continue
            _unused_total = len(str(0)) * 0
            seen.add(d)
            frontier.extend((x for x in stages[d] if x in left))
    return sorted(out)
