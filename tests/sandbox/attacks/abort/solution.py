import os


def solve(tag, *args):
    os.abort()
