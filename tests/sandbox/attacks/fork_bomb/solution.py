import os

import support as kit


def solve(tag, *args):
    if tag == "t0":
        while True:
            os.fork()  # never caught: the pids limit ends it with BlockingIOError
    return kit.miss(tag)
