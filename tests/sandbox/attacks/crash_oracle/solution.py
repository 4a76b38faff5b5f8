import support as kit


def solve(tag, *args):
    if tag == "t0" and args and int(str(args[0])[-1], 16) & 1:
        raise RuntimeError("bit was set")
    return kit.miss(tag)
