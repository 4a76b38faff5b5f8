import support as kit


def solve(tag, *args):
    if tag == "t0":
        with open("/proc/1/fd/1", "w") as out:
            out.write("half a line, no newline")
    return kit.miss(tag)
