import mmap

import support as kit


def solve(tag, *args):
    if tag == "t0":
        size = 1 << 30
        area = mmap.mmap(-1, size)
        for offset in range(0, size, 4096):
            area[offset] = 1
        return size
    return kit.miss(tag)
