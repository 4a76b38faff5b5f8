import os
import time

import support as kit


def solve(tag, *args):
    if tag == "t0":
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            try:
                pid = os.fork()
            except OSError:
                continue
            if pid == 0:
                try:
                    if os.fork() == 0:
                        os._exit(0)  # orphaned at once, then a zombie until reaped
                finally:
                    os._exit(0)
            os.waitpid(pid, 0)
        return kit.miss(tag)
    me, parent = os.getpid(), os.getppid()
    others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me, parent)]
    return kit.breach(f"processes of an earlier test remain: {others}") if others else kit.miss(tag)
