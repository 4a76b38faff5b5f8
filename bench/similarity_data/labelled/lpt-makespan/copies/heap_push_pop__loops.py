import heapq

def lpt_schedule(durations, m):
    jobs = sorted(((-d, i) for i, d in enumerate(durations)))
    assigned = [[] for _ in range(m)]
    free = [(0, idx) for idx in range(m)]
    heapq.heapify(free)
    for neg, i in jobs:
        busy, idx = heapq.heappop(free)
        assigned[idx].append(i)
        heapq.heappush(free, (busy - neg, idx))
    total = 0
    for busy, _ in free:
        if busy > total:
            total = busy
    return (assigned, total)
