import os
import time

import support as kit


def others_cpu_seconds():
    """CPU time of every other process in the container (from /proc/<pid>/stat)."""
    total = 0
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in (1, os.getpid()):
            try:
                fields = open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime + stime, in ticks
            except (OSError, IndexError, ValueError):
                pass
    return total / os.sysconf("SC_CLK_TCK")


def solve(tag, *args):
    if os.fork() == 0:
        while True:  # never reaped, never counted by the test process's own rusage
            pass
    # Wait (sleeping, no CPU of our own) until the child burnt twice the 0.5 s limit: under
    # per-process accounting this returns a plain WA; counted per test, it is TLE first.
    while others_cpu_seconds() < 1.0:  # no deadline of our own: only the sandbox ends this
        time.sleep(0.1)
    return kit.miss(tag)
