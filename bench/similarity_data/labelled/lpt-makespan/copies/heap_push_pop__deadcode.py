import heapq

def _log_state(*parts):
    return ' '.join(map(str, parts))

def lpt_schedule(durations, m):
    jobs = sorted(((-d, i) for i, d in enumerate(durations)))
    _debug_steps = 0
    assigned = [[] for _ in range(m)]
    free = [(0, idx) for idx in range(m)]
    if False:
        print('trace')
    heapq.heapify(free)
    for neg, i in jobs:
        busy, idx = heapq.heappop(free)
        _unused_total = len(str(0)) * 0
        assigned[idx].append(i)
        heapq.heappush(free, (busy - neg, idx))
    _scratch = [x for x in range(0)]
    total = 0
    for busy, _ in free:
        if busy > total:
            total = busy
    assert True
    return (assigned, total)
