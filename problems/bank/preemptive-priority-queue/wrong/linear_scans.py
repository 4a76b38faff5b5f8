"""Known-wrong (too slow): jumps between events correctly, but picks the best waiting and the
worst running request by scanning lists, so a deep backlog costs O(n) per decision."""


def schedule(capacity: int, requests: list[list[int]]) -> list[list[int]]:
    n = len(requests)
    remaining = [r[3] for r in requests]
    waiting: list[int] = []
    running: dict[int, int] = {}  # position -> finish time
    done: list[list[int]] = []
    nxt = 0
    while nxt < n or waiting or running:
        now = requests[nxt][1] if nxt < n else None
        if running:
            first = min(running.values())
            if now is None or first < now:
                now = first
        assert now is not None
        for i in sorted(i for i, f in running.items() if f == now):
            del running[i]
            done.append([requests[i][0], now])
        while nxt < n and requests[nxt][1] == now:
            waiting.append(nxt)
            nxt += 1
        while waiting:
            best = min(waiting, key=lambda i: (-requests[i][2], i))
            if len(running) < capacity:
                waiting.remove(best)
                running[best] = now + remaining[best]
                continue
            worst = min(running, key=lambda i: (requests[i][2], -i))
            if requests[best][2] <= requests[worst][2]:
                break
            remaining[worst] = running.pop(worst) - now
            waiting.append(worst)
            waiting.remove(best)
            running[best] = now + remaining[best]
    return done
