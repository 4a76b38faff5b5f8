import os
import time

import support as kit


def solve(tag, *args):
    if tag != "t0":
        return kit.miss(tag)
    if os.fork() == 0:  # a daemon that would like to outlive everything
        os.setsid()
        while True:
            time.sleep(0.1)
    time.sleep(3600)
    return kit.miss(tag)
