import threading

import support as kit

HOARD = []


def grab():
    while True:
        HOARD.append(bytearray(4 << 20))


def solve(tag, *args):
    if tag == "t0":
        for _ in range(3):
            threading.Thread(target=grab, daemon=True).start()
        grab()
    return kit.miss(tag)
