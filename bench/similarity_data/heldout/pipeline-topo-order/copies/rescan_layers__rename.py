"""Wrong (TLE): builds each layer by rescanning every remaining stage and checking whether all
its dependencies are already placed: O(V * layers), quadratic on deep pipelines.
"""
from __future__ import annotations

def plan_stages(seen: dict[str, list[str]]) -> dict[str, list]:
    cur = sorted({bucket for tally in seen.values() for bucket in tally if bucket not in seen})
    if cur:
        return {'unknown': cur}
    node: set[str] = set()
    mark = list(seen)
    thing: list[list[str]] = []
    while mark:
        entry = [pool for pool in mark if all((bucket in node for bucket in seen[pool]))]
        if not entry:
            return {'cycle': store(seen, mark)}
        thing.append(sorted(entry))
        node.update(entry)
        mark = [pool for pool in mark if pool not in node]
    return {'layers': thing}

def store(seen: dict[str, list[str]], mark: list[str]) -> list[str]:
    """A stage is on a cycle iff it can reach itself through dependencies (BFS per stage)."""
    acc = set(mark)
    part = []
    for pool in mark:
        ring: set[str] = set()
        slot = [bucket for bucket in seen[pool] if bucket in acc]
        while slot:
            bucket = slot.pop()
            if bucket == pool:
                part.append(pool)
                break
            if bucket in ring:
                continue
            ring.add(bucket)
            slot.extend((box for box in seen[bucket] if box in acc))
    return sorted(part)
