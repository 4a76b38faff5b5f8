def solve(tag, *args):
    raise KeyboardInterrupt
