import ctypes
import os

import support as kit

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
PTRACE_ATTACH, PTRACE_DETACH = 16, 17


def solve(tag, *args):
    attached = []
    for pid in (os.getppid(), 1):
        if libc.ptrace(PTRACE_ATTACH, pid, None, None) == 0:
            attached.append(pid)
            try:
                os.waitpid(pid, os.WNOHANG | 0x40000000)  # __WALL: PID 1 is not our child
            except OSError:
                pass
            libc.ptrace(PTRACE_DETACH, pid, None, None)
    return kit.breach(f"ptrace-attached to {attached}") if attached else kit.miss(tag)
