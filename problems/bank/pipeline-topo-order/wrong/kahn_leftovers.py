"""Wrong (WA): when Kahn's algorithm gets stuck it reports every stage left over as "on a
cycle", including stages that only depend (directly or not) on a cycle.
"""

from __future__ import annotations

from collections import deque


def plan_stages(stages: dict[str, list[str]]) -> dict[str, list]:
    unknown = sorted({d for deps in stages.values() for d in deps if d not in stages})
    if unknown:
        return {"unknown": unknown}
    children: dict[str, list[str]] = {name: [] for name in stages}
    indeg = {name: 0 for name in stages}
    for name, deps in stages.items():
        for d in set(deps):
            children[d].append(name)
            indeg[name] += 1
    # cycle check with Kahn
    left = dict(indeg)
    queue = deque(n for n in stages if left[n] == 0)
    seen = 0
    while queue:
        u = queue.popleft()
        seen += 1
        for v in children[u]:
            left[v] -= 1
            if left[v] == 0:
                queue.append(v)
    if seen < len(stages):
        return {"cycle": sorted(n for n in stages if left[n] > 0)}
    # layer = 1 + deepest dependency, in Kahn order
    level = {n: 0 for n in stages}
    left = dict(indeg)
    queue = deque(n for n in stages if left[n] == 0)
    while queue:
        u = queue.popleft()
        for v in children[u]:
            level[v] = max(level[v], level[u] + 1)
            left[v] -= 1
            if left[v] == 0:
                queue.append(v)
    layers: dict[int, list[str]] = {}
    for name, lv in level.items():
        layers.setdefault(lv, []).append(name)
    return {"layers": [sorted(layers[k]) for k in sorted(layers)]}
