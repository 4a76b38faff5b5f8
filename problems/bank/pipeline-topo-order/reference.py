"""Reference: parallel execution layers of an ML pipeline DAG, or the stages on a cycle.

1. Unknown dependency names are reported first.
2. Kahn's algorithm, one layer at a time: a layer is every stage whose remaining in-degree
   dropped to 0 while the previous layer was processed, i.e. each stage lands in the earliest
   layer after all its dependencies (its longest dependency chain). O(V + E) plus sorting.
3. If Kahn's leaves stages behind there is a cycle. The leftovers are the stages ON a cycle plus
   the stages that merely depend on one; an iterative Tarjan SCC pass keeps only the former:
   stages in a strongly connected component of size >= 2, or with a self-dependency.
   Iterative, because pipelines of 10^5 stages would blow Python's recursion limit.
"""

from __future__ import annotations


def plan_stages(stages: dict[str, list[str]]) -> dict[str, list]:
    """Return {"layers": [...]}, {"cycle": [...]} or {"unknown": [...]} (see the statement)."""
    names = list(stages)
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    dependents: list[list[int]] = [[] for _ in range(n)]
    indegree = [0] * n
    self_loop = [False] * n
    unknown: set[str] = set()
    for v, deps in enumerate(stages.values()):
        for dep in deps:
            u = index.get(dep)
            if u is None:
                unknown.add(dep)
                continue
            if u == v:
                self_loop[v] = True
            # A repeated dependency adds a parallel edge AND a matching in-degree, so Kahn's
            # counting stays consistent without deduplicating.
            dependents[u].append(v)
            indegree[v] += 1
    if unknown:
        return {"unknown": sorted(unknown)}

    layers: list[list[str]] = []
    current = [v for v in range(n) if indegree[v] == 0]
    placed = 0
    while current:
        layers.append(sorted(names[v] for v in current))
        placed += len(current)
        following: list[int] = []
        for u in current:
            for v in dependents[u]:
                indegree[v] -= 1
                if indegree[v] == 0:
                    following.append(v)
        current = following
    if placed == n:
        return {"layers": layers}
    leftovers = [v for v in range(n) if indegree[v] > 0]
    on_cycle = _nodes_on_cycles(dependents, self_loop, leftovers)
    return {"cycle": sorted(names[v] for v in on_cycle)}


def _nodes_on_cycles(adj: list[list[int]], self_loop: list[bool], roots: list[int]) -> list[int]:
    """Iterative Tarjan from `roots`; return nodes in an SCC of size >= 2 or with a self-loop."""
    n = len(adj)
    order = [-1] * n  # discovery index, -1 = unvisited
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    found: list[int] = []
    counter = 0
    for root in roots:
        if order[root] != -1:
            continue
        order[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [(root, 0)]  # (node, position of the next outgoing edge to explore)
        while work:
            v, pos = work[-1]
            if pos < len(adj[v]):
                work[-1] = (v, pos + 1)
                w = adj[v][pos]
                if order[w] == -1:
                    order[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w] and order[w] < low[v]:
                    low[v] = order[w]
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[v] < low[parent]:
                    low[parent] = low[v]
            if low[v] == order[v]:  # v roots an SCC: pop it
                component: list[int] = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1 or self_loop[v]:
                    found.extend(component)
    return found
