import support as kit


def solve(tag, *args):
    if tag == "t0":
        try:
            with open("/proc/1/fd/1", "w") as out:  # the container's stdout, if reachable
                out.write("half a line, no newline")
        except OSError:
            pass
    return kit.miss(tag)
