import support as kit


def solve(tag, *args):
    if tag == "t0":
        while True:
            pass
    return kit.miss(tag)
