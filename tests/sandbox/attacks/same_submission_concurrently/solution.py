import os
import time

import support as kit


def solve(tag, *args):
    # Something per-container to collide on if runs shared one: a file and a pid count.
    with open("/tmp/onsite_attack_shared", "a") as handle:
        handle.write(tag)
    time.sleep(0.1)
    with open("/tmp/onsite_attack_shared") as handle:
        seen = handle.read()
    if seen != tag:
        return kit.breach(f"another run's test wrote into this container: {seen!r}")
    return kit.miss(tag) + f"-{len(os.listdir('/proc'))}"
