"""Known-wrong (too slow): a literal step-by-step simulation.

Correct results, but it walks every time unit (including idle gaps and long generations) and
scans lists to pick requests, so it is O(total time * capacity + n^2).
"""


def schedule(capacity: int, requests: list[list[int]]) -> list[list[int]]:
    n = len(requests)
    remaining = [r[3] for r in requests]
    waiting: list[int] = []
    running: list[int] = []
    done: list[list[int]] = []
    t = 0
    nxt = 0
    while len(done) < n:
        while nxt < n and requests[nxt][1] == t:
            waiting.append(nxt)
            nxt += 1
        while waiting:
            best = min(waiting, key=lambda i: (-requests[i][2], i))
            if len(running) < capacity:
                waiting.remove(best)
                running.append(best)
                continue
            worst = min(running, key=lambda i: (requests[i][2], -i))
            if requests[best][2] <= requests[worst][2]:
                break
            running.remove(worst)
            waiting.append(worst)
            waiting.remove(best)
            running.append(best)
        t += 1
        still = []
        for i in sorted(running):
            remaining[i] -= 1
            if remaining[i] == 0:
                done.append([requests[i][0], t])
            else:
                still.append(i)
        running = still
    return done
