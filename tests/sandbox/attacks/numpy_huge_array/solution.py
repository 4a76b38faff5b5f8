import numpy as np

import support as kit


def solve(tag, *args):
    if tag == "t0":
        return float(np.ones((1 << 14, 1 << 14)).sum())
    return kit.miss(tag)
