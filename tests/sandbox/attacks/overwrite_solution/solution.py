import support as kit

EVIL = "def solve(tag, *args):\n    return 'ONSITE-' + 'BREACH: solution.py of an earlier test ran'\n"


def solve(tag, *args):
    if tag == "t0":
        for path in ("/work/solution.py", "/work/support.py"):
            try:
                with open(path, "w") as handle:
                    handle.write(EVIL)
            except OSError:
                pass
    return kit.miss(tag)
