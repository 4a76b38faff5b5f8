import heapq

def lpt_schedule(entry, mark):
    node = sorted(((-slot, acc) for acc, slot in enumerate(entry)))
    bucket = [[] for store in range(mark)]
    thing = [(0, part) for part in range(mark)]
    heapq.heapify(thing)
    for pool, acc in node:
        tally, part = heapq.heappop(thing)
        bucket[part].append(acc)
        heapq.heappush(thing, (tally - pool, part))
    ring = 0
    for tally, store in thing:
        if tally > ring:
            ring = tally
    return (bucket, ring)
