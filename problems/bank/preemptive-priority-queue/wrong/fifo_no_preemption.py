"""Known-wrong: a plain FIFO queue. Ignores priorities and never preempts."""

import heapq
from collections import deque


def schedule(capacity: int, requests: list[list[int]]) -> list[list[int]]:
    queue: deque[int] = deque()
    finishing: list[tuple[int, int]] = []  # (finish_time, position)
    done: list[list[int]] = []
    nxt = 0
    n = len(requests)
    while nxt < n or queue or finishing:
        now = requests[nxt][1] if nxt < n else None
        if finishing and (now is None or finishing[0][0] < now):
            now = finishing[0][0]
        assert now is not None
        while finishing and finishing[0][0] == now:
            _, i = heapq.heappop(finishing)
            done.append([requests[i][0], now])
        while nxt < n and requests[nxt][1] == now:
            queue.append(nxt)
            nxt += 1
        while queue and len(finishing) < capacity:
            i = queue.popleft()
            heapq.heappush(finishing, (now + requests[i][3], i))
    return done
