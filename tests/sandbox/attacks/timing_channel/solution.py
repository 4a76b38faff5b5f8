import time

import support as kit


def solve(tag, *args):
    if tag == "t0" and args:
        secret = str(args[0])
        time.sleep((ord(secret[-1]) % 16) * 0.02)  # time_ms leaks one hex digit
    return kit.miss(tag)
