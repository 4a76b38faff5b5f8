import os
import signal
import time

import support as kit


def solve(tag, *args):
    if tag == "t0":
        for kind in ("zombie", "stopped", "stubborn"):
            pid = os.fork()
            if pid == 0:
                if kind == "zombie":
                    os._exit(0)
                if kind == "stopped":
                    os.kill(os.getpid(), signal.SIGSTOP)
                for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGUSR1):
                    signal.signal(sig, signal.SIG_IGN)
                os.setsid()
                while True:
                    time.sleep(0.05)
        return "left children behind"  # never waits: the zombie stays a zombie
    me, parent = os.getpid(), os.getppid()
    others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me, parent)]
    if others:
        return kit.breach(f"processes of an earlier test survive: {others}")
    return kit.miss(tag)
