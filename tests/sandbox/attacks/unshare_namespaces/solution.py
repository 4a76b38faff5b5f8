import ctypes

import support as kit

libc = ctypes.CDLL(None, use_errno=True)
FLAGS = {"user": 0x10000000, "mount": 0x00020000, "pid": 0x20000000, "net": 0x40000000,
         "uts": 0x04000000, "ipc": 0x08000000, "cgroup": 0x02000000}


def solve(tag, *args):
    done = [name for name, flag in FLAGS.items() if libc.unshare(flag) == 0]
    return kit.breach(f"unshared: {done}") if done else kit.miss(tag)
