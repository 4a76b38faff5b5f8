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
    # makespan: the heaviest machine's total, computed from the assignment
    finish = [sum(durations[j] for j in row) for row in assigned]
    return assigned, max(finish) if finish else 0
