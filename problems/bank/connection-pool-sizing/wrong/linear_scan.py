"""Known-wrong (too slow): tries pool sizes 1, 2, 3, ... and replays the whole trace for each,
finding the next free connection with a linear scan: O(c * n * c) for an answer c."""

import math


def _p99_wait(arrivals: list[int], service: list[int], pool: int) -> int:
    free_at = [0] * pool
    waits = []
    for arrival, duration in zip(arrivals, service, strict=True):
        slot = min(range(pool), key=free_at.__getitem__)
        start = max(arrival, free_at[slot])
        free_at[slot] = start + duration
        waits.append(start - arrival)
    waits.sort()
    return waits[math.ceil(0.99 * len(waits)) - 1]


def min_pool_size(arrivals: list[int], service: list[int], target_p99_wait: int) -> int:
    pool = 1
    while _p99_wait(arrivals, service, pool) > target_p99_wait:
        pool += 1
    return pool
