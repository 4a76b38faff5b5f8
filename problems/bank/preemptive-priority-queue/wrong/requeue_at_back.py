"""Known-wrong: a preempted request goes to the back of the waiting queue (it loses its
original arrival position among requests of the same priority)."""

import heapq
import itertools


def schedule(capacity: int, requests: list[list[int]]) -> list[list[int]]:
    """Simulate the scheduler; return ``[id, finish_time]`` pairs in completion order.

    ``requests[i] = [id, arrival, priority, work]``, sorted by arrival; the list position is
    the arrival order used to break ties.
    """
    n = len(requests)
    priority = [r[2] for r in requests]
    remaining = [r[3] for r in requests]
    finish_at = [0] * n
    epoch = [0] * n
    running = [False] * n
    n_running = 0
    waiting: list[tuple[int, int, int]] = []
    seq = list(range(n))
    counter = itertools.count(n)
    finishes: list[tuple[int, int, int]] = []
    victims: list[tuple[int, int, int]] = []
    completed: list[list[int]] = []

    def start(i: int, now: int) -> None:
        nonlocal n_running
        epoch[i] += 1
        running[i] = True
        n_running += 1
        finish_at[i] = now + remaining[i]
        heapq.heappush(finishes, (finish_at[i], i, epoch[i]))
        heapq.heappush(victims, (priority[i], -i, epoch[i]))

    def preempt(i: int, now: int) -> None:
        nonlocal n_running
        epoch[i] += 1
        running[i] = False
        n_running -= 1
        remaining[i] = finish_at[i] - now
        # re-enqueue behind everything already waiting
        seq[i] = next(counter)
        heapq.heappush(waiting, (-priority[i], seq[i], i))

    def is_live(i: int, entry_epoch: int) -> bool:
        return running[i] and epoch[i] == entry_epoch

    def next_finish() -> tuple[int, int] | None:
        """(finish_time, position) of the next running request to complete, if any."""
        while finishes and not is_live(finishes[0][1], finishes[0][2]):
            heapq.heappop(finishes)
        return (finishes[0][0], finishes[0][1]) if finishes else None

    def worst_running() -> int:
        """Position of the running request to preempt first (lowest priority, latest arrival)."""
        while not is_live(-victims[0][1], victims[0][2]):
            heapq.heappop(victims)
        return -victims[0][1]

    next_arrival = 0
    while next_arrival < n or waiting or n_running:
        # Jump to the next event: an arrival or a completion.
        now = requests[next_arrival][1] if next_arrival < n else None
        upcoming = next_finish()
        if upcoming is not None and (now is None or upcoming[0] < now):
            now = upcoming[0]
        assert now is not None  # capacity >= 1, so waiting work implies running work

        # 1. Completions at `now` free their slots first (heap order = arrival order on ties).
        while (upcoming := next_finish()) is not None and upcoming[0] == now:
            heapq.heappop(finishes)
            i = upcoming[1]
            running[i] = False
            n_running -= 1
            completed.append([requests[i][0], now])

        # 2. Arrivals at `now` join the waiting queue.
        while next_arrival < n and requests[next_arrival][1] == now:
            heapq.heappush(waiting, (-priority[next_arrival], next_arrival, next_arrival))
            next_arrival += 1

        # 3. Fill free slots, then preempt while the best waiting request strictly outranks
        #    the worst running one.
        while waiting:
            best = waiting[0][2]
            if n_running < capacity:
                heapq.heappop(waiting)
                start(best, now)
                continue
            worst = worst_running()
            if priority[best] <= priority[worst]:
                break
            heapq.heappop(waiting)
            heapq.heappop(victims)
            preempt(worst, now)
            start(best, now)
    return completed
