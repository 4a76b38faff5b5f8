import os
import signal

import support as kit


def solve(tag, *args):
    if tag == "t0":
        os.kill(os.getpid(), signal.SIGSTOP)
        return "resumed"
    return kit.miss(tag)
