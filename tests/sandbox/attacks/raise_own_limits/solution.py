import os
import resource

import support as kit


def solve(tag, *args):
    if tag == "t0":
        lifted = []
        for name in ("RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_FSIZE"):
            limit = getattr(resource, name)
            soft, hard = resource.getrlimit(limit)
            try:
                resource.setrlimit(limit, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            except (ValueError, OSError):
                continue
            if hard != resource.RLIM_INFINITY:
                lifted.append(name)
        try:
            os.setpriority(os.PRIO_PROCESS, 0, -20)
            lifted.append("nice -20")
        except OSError:
            pass
        if lifted:
            return kit.breach(f"raised its own hard limits: {lifted}")
        while True:
            pass
    return kit.miss(tag)
