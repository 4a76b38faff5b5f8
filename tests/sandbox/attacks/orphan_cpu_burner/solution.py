import os
import time

import support as kit


def others_cpu_seconds():
    total = 0
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in (1, os.getpid()):
            try:
                fields = open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
            except (OSError, IndexError, ValueError):
                pass
    return total / os.sysconf("SC_CLK_TCK")


def solve(tag, *args):
    if os.fork() == 0:
        for _ in range(2):
            if os.fork() == 0:
                os.setsid()
                while True:
                    pass
        os._exit(0)  # the grandchildren now belong to PID 1
    os.wait()
    while others_cpu_seconds() < 1.0:  # no deadline of our own: only the sandbox ends this
        time.sleep(0.1)
    return kit.miss(tag)
