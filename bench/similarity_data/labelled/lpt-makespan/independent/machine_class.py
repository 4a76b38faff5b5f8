from __future__ import annotations

from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush


@dataclass(order=True)
class Machine:
    load: int
    index: int
    jobs: list[int] = field(default_factory=list, compare=False)


def lpt_schedule(durations: list[int], m: int) -> tuple[list[list[int]], int]:
    pool = [Machine(0, k) for k in range(m)]
    heapify(pool)
    by_length = sorted(range(len(durations)), key=lambda job: (-durations[job], job))
    for job in by_length:
        machine = heappop(pool)
        machine.jobs.append(job)
        machine.load += durations[job]
        heappush(pool, machine)
    pool.sort(key=lambda machine: machine.index)
    return [machine.jobs for machine in pool], max((x.load for x in pool), default=0)
