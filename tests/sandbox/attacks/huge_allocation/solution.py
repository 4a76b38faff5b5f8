import support as kit


def solve(tag, *args):
    if tag == "t0":
        block = bytearray(4 << 30)
        return len(block)
    return kit.miss(tag)
