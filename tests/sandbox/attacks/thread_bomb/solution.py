import threading

import support as kit


def spin():
    while True:
        pass


def solve(tag, *args):
    if tag == "t0":
        while True:
            threading.Thread(target=spin, daemon=True).start()
    return kit.miss(tag)
