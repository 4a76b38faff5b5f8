import ctypes


def solve(tag, *args):
    return ctypes.string_at(0, 16)
