"""Wrong (WA): layers from a DFS: a stage's layer is its depth in the DFS tree (one more than
the stage the DFS first reached it from), not one more than its deepest dependency. Unknown
names and cycles are handled correctly.
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
        return {"cycle": _cycle_nodes(stages, children)}
    # layers = depth in the DFS tree grown from each source (explicit stack)
    level: dict[str, int] = {}
    for src in stages:
        if indeg[src] != 0 or src in level:
            continue
        level[src] = 0
        todo = [src]
        while todo:
            u = todo.pop()
            for v in reversed(children[u]):
                if v not in level:
                    level[v] = level[u] + 1
                    todo.append(v)
    layers: dict[int, list[str]] = {}
    for name, lv in level.items():
        layers.setdefault(lv, []).append(name)
    return {"layers": [sorted(layers[k]) for k in sorted(layers)]}


def _cycle_nodes(stages: dict[str, list[str]], children: dict[str, list[str]]) -> list[str]:
    """Iterative Tarjan: stages in an SCC of size >= 2 or with a self-dependency."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[str] = []
    for root in stages:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, 0)]
        while work:
            v, i = work[-1]
            if i < len(children[v]):
                work[-1] = (v, i + 1)
                w = children[v][i]
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
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
    return sorted(out)
