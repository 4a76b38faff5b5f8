from __future__ import annotations


def lpt_schedule(durations: list[int], m: int) -> tuple[list[list[int]], int]:
    order = sorted(range(len(durations)), key=lambda j: (-durations[j], j))
    loads = [0] * m
    machines: list[list[int]] = [[] for _ in range(m)]
    for job in order:
        best = min(range(m), key=lambda k: (loads[k], k))
        machines[best].append(job)
        loads[best] += durations[job]
    span = 0
    if loads:
        span = sorted(loads)[-1]
    return machines, span
