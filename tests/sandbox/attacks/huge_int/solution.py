import sys


def solve(tag, *args):
    sys.set_int_max_str_digits(0)
    return 7 ** 120_000
