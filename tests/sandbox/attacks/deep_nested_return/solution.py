def solve(tag, *args):
    value = []
    for _ in range(100_000):
        value = [value]
    return value
