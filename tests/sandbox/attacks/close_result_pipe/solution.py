import os

import support as kit


def solve(tag, *args):
    os.closerange(3, 1024)
    return kit.miss(tag)
