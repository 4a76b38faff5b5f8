def solve(tag, *args):
    return "r" * (8 << 20)
