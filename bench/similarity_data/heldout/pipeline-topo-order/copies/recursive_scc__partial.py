"""Wrong (RE): correct layering, but cycle membership uses a RECURSIVE Tarjan: on a pipeline with
a long dependency chain the recursion goes tens of thousands of frames deep (RecursionError).
"""

from __future__ import annotations


def plan_stages(stages: dict[str, list[str]]) -> dict[str, list]:
    unknown = sorted({d for deps in stages.values() for d in deps if d not in stages})
    if unknown:
        return {"unknown": unknown}
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
        return {"layers": layers}

    # what is left is on a cycle or behind one: keep the stages that reach themselves
    left = {s for s in stages if indeg[s] > 0}
    on_cycle = []
    for start in sorted(left):
        todo = list(stages[start])
        visited = set()
        while todo:
            cur = todo.pop()
            if cur == start:
                on_cycle.append(start)
                break
            if cur in visited or cur not in left:
                continue
            visited.add(cur)
            todo.extend(stages[cur])
    return {"cycle": on_cycle}
