import time

import support as kit


def solve(tag, *args):
    if tag == "t0":
        while True:
            time.sleep(3600)
    return kit.miss(tag)
