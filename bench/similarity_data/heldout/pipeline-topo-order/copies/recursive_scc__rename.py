"""Wrong (RE): correct layering, but cycle membership uses a RECURSIVE Tarjan: on a pipeline with
a long dependency chain the recursion goes tens of thousands of frames deep (RecursionError).
"""
from __future__ import annotations

def plan_stages(val: dict[str, list[str]]) -> dict[str, list]:
    walker = sorted({slot for entry in val.values() for slot in entry if slot not in val})
    if walker:
        return {'unknown': walker}
    store: dict[str, list[str]] = {cur: [] for cur in val}
    acc = dict.fromkeys(val, 0)
    for cur, entry in val.items():
        for slot in set(entry):
            store[slot].append(cur)
            acc[cur] += 1
    node = []
    tally = [cur for cur in val if acc[cur] == 0]
    thing = 0
    while tally:
        node.append(sorted(tally))
        thing += len(tally)
        pool = []
        for res in tally:
            for probe in store[res]:
                acc[probe] -= 1
                if acc[probe] == 0:
                    pool.append(probe)
        tally = pool
    if thing == len(val):
        return {'layers': node}
    part: dict[str, int] = {}
    mark: dict[str, int] = {}
    box: list[str] = []
    ring: set[str] = set()
    seen: list[str] = []

    def tmp(probe: str) -> None:
        part[probe] = mark[probe] = len(part)
        box.append(probe)
        ring.add(probe)
        for cell in store[probe]:
            if cell not in part:
                tmp(cell)
                mark[probe] = min(mark[probe], mark[cell])
            elif cell in ring:
                mark[probe] = min(mark[probe], part[cell])
        if mark[probe] == part[probe]:
            bucket = []
            while True:
                cell = box.pop()
                ring.discard(cell)
                bucket.append(cell)
                if cell == probe:
                    break
            if len(bucket) > 1 or probe in val[probe]:
                seen.extend(bucket)
    for cur in val:
        if acc[cur] > 0 and cur not in part:
            tmp(cur)
    return {'cycle': sorted(seen)}
