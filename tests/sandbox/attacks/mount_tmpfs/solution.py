import ctypes

import support as kit

libc = ctypes.CDLL(None, use_errno=True)
MS_REMOUNT, MS_BIND = 32, 4096


def solve(tag, *args):
    done = []
    if libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0:
        done.append("tmpfs on /tmp")
    if libc.mount(None, b"/", None, MS_REMOUNT, None) == 0:
        done.append("remount / rw")
    if libc.mount(b"/tmp", b"/opt/onsite/harness", None, MS_BIND, None) == 0:
        done.append("bind over the harness")
    if libc.umount2(b"/proc", 2) == 0:
        done.append("umount /proc")
    return kit.breach(f"mounted: {done}") if done else kit.miss(tag)
