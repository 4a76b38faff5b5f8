import ctypes
import os

import support as kit

KEY = 0x0A7AC
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]


def solve(tag, *args):
    if tag == "t0":
        segment = libc.shmget(KEY, 4096, 0o1600)  # IPC_CREAT | 0600
        if segment < 0:
            return kit.miss(tag)
        address = libc.shmat(segment, None, 0)
        data = repr(args).encode()[:4000] + b"\0"
        ctypes.memmove(address, data, len(data))
        return kit.miss(tag)
    segment = libc.shmget(KEY, 0, 0)
    if segment < 0:
        return kit.miss(tag)
    address = libc.shmat(segment, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        return kit.breach("the segment survived (" + os.strerror(ctypes.get_errno()) + ")")
    data = ctypes.string_at(address)
    return kit.pick(tag, data) or kit.breach("a shared-memory segment survived the test")
