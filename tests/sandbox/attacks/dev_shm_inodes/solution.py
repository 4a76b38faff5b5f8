import os
import time

import support as kit


def solve(tag, *args):
    if tag != "t0":
        return kit.miss(tag)
    deadline = time.monotonic() + 1.2
    count = 0
    while time.monotonic() < deadline:  # raises OSError (ENOSPC) once a limit is hit
        os.close(os.open(f"/dev/shm/onsite_attack_{count}", os.O_CREAT | os.O_WRONLY))
        count += 1
    if count > 20_000:
        return kit.breach(f"{count} files in /dev/shm and no inode limit in sight")
    return kit.miss(tag)
