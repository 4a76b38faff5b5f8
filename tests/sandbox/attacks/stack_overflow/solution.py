import sys

import support as kit


def down(n):
    return down(n + 1) + 1


def solve(tag, *args):
    if tag == "t0":
        sys.setrecursionlimit(10**7)
        return down(0)
    return kit.miss(tag)
