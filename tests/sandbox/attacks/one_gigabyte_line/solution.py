import sys

import support as kit


def solve(tag, *args):
    if tag == "t0":
        piece = "x" * (1 << 20)
        for _ in range(1024):
            sys.stdout.write(piece)
        return "written"
    return kit.miss(tag)
