import bisect


def lpt_schedule(durations: list[int], m: int) -> tuple[list[list[int]], int]:
    """Keep (load, machine) pairs sorted; the least loaded is always first."""
    result = [[] for _ in range(m)]
    loads = [(0, k) for k in range(m)]
    order = list(range(len(durations)))
    order.sort(key=lambda j: -durations[j])
    for j in order:
        load, k = loads.pop(0)
        result[k].append(j)
        bisect.insort(loads, (load + durations[j], k))
    worst = 0
    for load, _ in loads:
        worst = max(worst, load)
    return result, worst
