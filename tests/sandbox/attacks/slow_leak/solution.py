import time

import support as kit

HOARD = []


def solve(tag, *args):
    if tag == "t0":
        while True:
            HOARD.append(bytearray(1 << 20))  # zero-filled: every page is touched
            time.sleep(0.001)
    return kit.miss(tag)
