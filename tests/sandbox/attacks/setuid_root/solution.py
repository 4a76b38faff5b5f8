import ctypes
import os

import support as kit

libc = ctypes.CDLL(None, use_errno=True)


def solve(tag, *args):
    done = []
    for name, call in (("setuid", lambda: os.setuid(0)), ("setgid", lambda: os.setgid(0)),
                       ("setgroups", lambda: os.setgroups([0])),
                       ("setresuid", lambda: os.setresuid(0, 0, 0))):
        try:
            call()
            done.append(name)
        except OSError:
            pass
    if libc.prctl(47, 2, 21, 0, 0) == 0:  # PR_CAP_AMBIENT, RAISE, CAP_SYS_ADMIN
        done.append("ambient CAP_SYS_ADMIN")
    with open("/proc/self/status") as status:
        caps = {l.split(":")[0]: l.split()[1] for l in status if l.startswith("Cap")}
    if any(int(v, 16) for v in caps.values()):
        done.append(f"capabilities {caps}")
    return kit.breach(f"privileges: {done}") if done or os.geteuid() == 0 else kit.miss(tag)
