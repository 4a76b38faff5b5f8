import signal

import support as kit

WARNINGS = []


def solve(tag, *args):
    if tag == "t0":
        signal.signal(signal.SIGXCPU, lambda *_: WARNINGS.append(1))
        while True:
            pass
    return kit.miss(tag)
