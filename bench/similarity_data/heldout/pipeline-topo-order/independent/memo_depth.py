from __future__ import annotations

import sys


def plan_stages(stages: dict[str, list[str]]) -> dict[str, list]:
    missing = set()
    for deps in stages.values():
        missing.update(x for x in deps if x not in stages)
    if missing:
        return {"unknown": sorted(missing)}

    WHITE, GREY, BLACK = 0, 1, 2
    colour = {s: WHITE for s in stages}
    depth: dict[str, int] = {}
    cyclic = False

    # iterative post-order DFS over dependencies: depth = 1 + max depth of the dependencies
    for root in stages:
        if colour[root] != WHITE:
            continue
        path = [(root, iter(stages[root]))]
        colour[root] = GREY
        while path:
            node, deps = path[-1]
            step = next(deps, None)
            if step is None:
                path.pop()
                colour[node] = BLACK
                depth[node] = 1 + max((depth.get(d, -1) for d in stages[node]), default=-1)
            elif colour[step] == GREY:
                cyclic = True
            elif colour[step] == WHITE:
                colour[step] = GREY
                path.append((step, iter(stages[step])))
    if cyclic:
        return {"cycle": cycle_members(stages)}
    out: list[list[str]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for s, d in depth.items():
        out[d].append(s)
    return {"layers": [sorted(level) for level in out]}


def cycle_members(stages: dict[str, list[str]]) -> list[str]:
    """Stages in a strongly connected component of two or more, or depending on themselves."""
    # Kosaraju: order by finishing time on the graph, then sweep the reversed graph.
    finished: list[str] = []
    visited: set[str] = set()
    for start in stages:
        if start in visited:
            continue
        visited.add(start)
        work = [(start, 0)]
        while work:
            node, i = work.pop()
            if i < len(stages[node]):
                work.append((node, i + 1))
                nxt = stages[node][i]
                if nxt not in visited:
                    visited.add(nxt)
                    work.append((nxt, 0))
            else:
                finished.append(node)
    reverse: dict[str, list[str]] = {s: [] for s in stages}
    for s, deps in stages.items():
        for d in deps:
            reverse[d].append(s)
    assigned: set[str] = set()
    result = []
    for s in reversed(finished):
        if s in assigned:
            continue
        group = [s]
        assigned.add(s)
        k = 0
        while k < len(group):
            for t in reverse[group[k]]:
                if t not in assigned:
                    assigned.add(t)
                    group.append(t)
            k += 1
        if len(group) > 1 or s in stages[s]:
            result.extend(group)
    return sorted(result)


sys.setrecursionlimit(10000)
