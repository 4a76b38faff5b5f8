"""Wrong (TLE): builds each layer by rescanning every remaining stage and checking whether all
its dependencies are already placed: O(V * layers), quadratic on deep pipelines.
"""

from __future__ import annotations


def plan_stages(stages: dict[str, list[str]]) -> dict[str, list]:
    unknown = sorted({d for deps in stages.values() for d in deps if d not in stages})
    if unknown:
        return {"unknown": unknown}
    placed: set[str] = set()
    remaining = list(stages)
    layers: list[list[str]] = []
    while remaining:
        layer = [s for s in remaining if all(d in placed for d in stages[s])]
        if not layer:
            return {"cycle": _on_cycle(stages, remaining)}
        layers.append(sorted(layer))
        placed.update(layer)
        remaining = [s for s in remaining if s not in placed]
    return {"layers": layers}



def _on_cycle(stages, remaining):
    # Tarjan-free: a stage is on a cycle when a DFS from its dependencies comes back to it
    pending = set(remaining)
    found = []
    for stage in remaining:
        stack = [x for x in stages[stage] if x in pending]
        reached = set(stack)
        hit = False
        while stack and not hit:
            node = stack.pop()
            hit = node == stage
            for nxt in stages[node]:
                if nxt in pending and nxt not in reached:
                    reached.add(nxt)
                    stack.append(nxt)
        if hit or stage in reached:
            found.append(stage)
    return sorted(found)
