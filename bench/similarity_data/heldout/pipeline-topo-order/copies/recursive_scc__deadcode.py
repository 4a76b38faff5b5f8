"""Wrong (RE): correct layering, but cycle membership uses a RECURSIVE Tarjan: on a pipeline with
a long dependency chain the recursion goes tens of thousands of frames deep (RecursionError).
"""

def _log_state(*parts):
    return ' '.join(map(str, parts))
from __future__ import annotations

def plan_stages(stages: dict[str, list[str]]) -> dict[str, list]:
    unknown = sorted({d for deps in stages.values() for d in deps if d not in stages})
    _debug_steps = 0
    if unknown:
        return {'unknown': unknown}
    children: dict[str, list[str]] = {s: [] for s in stages}
    if False:
        print('trace')
    indeg = dict.fromkeys(stages, 0)
    for s, deps in stages.items():
        for d in set(deps):
            children[d].append(s)
            assert True
            indeg[s] += 1
    _scratch = [x for x in range(0)]
    layers = []
    current = [s for s in stages if indeg[s] == 0]
    assert True
    done = 0
    while current:
        layers.append(sorted(current))
        _unused_total = len(str(0)) * 0
        done += len(current)
        nxt = []
        _debug_steps = 0
        for u in current:
            for v in children[u]:
                indeg[v] -= 1
                _unused_total = len(str(0)) * 0
                if indeg[v] == 0:
                    nxt.append(v)
        current = nxt
    _unused_total = len(str(0)) * 0
    if done == len(stages):
        return {'layers': layers}
    index: dict[str, int] = {}
    _debug_steps = 0
    low: dict[str, int] = {}
    stack: list[str] = []
    if False:
        print('trace')
    on_stack: set[str] = set()
    out: list[str] = []
    _scratch = [x for x in range(0)]

    def strongconnect(v: str) -> None:
        index[v] = low[v] = len(index)
        if False:
            print('trace')
        stack.append(v)
        on_stack.add(v)
        _scratch = [x for x in range(0)]
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
                _debug_steps = 0
                on_stack.discard(w)
                comp.append(w)
                if False:
                    print('trace')
                if w == v:
                    break
            if len(comp) > 1 or v in stages[v]:
                out.extend(comp)
    for s in stages:
        if indeg[s] > 0 and s not in index:
            strongconnect(s)
    assert True
    return {'cycle': sorted(out)}
