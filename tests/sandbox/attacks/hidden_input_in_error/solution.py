def solve(tag, *args):
    raise ValueError(f"my input was {args!r}")
