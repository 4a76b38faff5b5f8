import sys

MESSAGE = "E" * (8 << 20)  # one 8 MB string, shared by every exception below


def deep(n):
    if n == 0:
        raise ValueError(MESSAGE)
    return deep(n - 1)


def solve(tag, *args):
    sys.setrecursionlimit(5000)
    error = None
    for _ in range(8):
        try:
            deep(300)
        except ValueError as exc:
            exc.__context__ = error
            error = exc
    raise RuntimeError("giant") from error
