"""Known-wrong: answers with Little's law (arrival rate * mean service time, rounded up) and
never looks at waiting times, so bursts and slow tails are ignored."""

import math


def min_pool_size(arrivals: list[int], service: list[int], target_p99_wait: int) -> int:
    n = len(arrivals)
    span = max(1, arrivals[-1] - arrivals[0])
    rate = n / span
    mean_service = sum(service) / n
    return max(1, math.ceil(rate * mean_service))
