import numpy as np

import support as kit


def solve(tag, *args):
    if tag == "t0":
        arr = np.zeros(1 << 28, dtype=np.uint8)  # 256 MiB, not yet backed
        for start in range(0, arr.size, 1 << 20):
            arr[start : start + (1 << 20)] = 1
        return int(arr[-1])
    return kit.miss(tag)
