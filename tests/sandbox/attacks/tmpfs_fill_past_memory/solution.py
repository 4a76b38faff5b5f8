import os

import support as kit

HOARD = []


def fill(directory):
    chunk = b"\xa5" * (1 << 20)
    index = 0
    while True:
        try:
            with open(os.path.join(directory, f"onsite_attack_fill{index}"), "wb") as handle:
                for _ in range(4):
                    handle.write(chunk)
        except OSError:
            return
        index += 1


def solve(tag, *args):
    if tag == "t0":
        for directory in ("/dev/shm", "/tmp", "/work"):
            fill(directory)
        while True:  # whatever memory is left
            HOARD.append(bytearray(1 << 20))
    free = [os.statvfs(d).f_bavail * os.statvfs(d).f_frsize for d in ("/dev/shm", "/tmp", "/work")]
    if min(free) < (8 << 20):
        return kit.breach(f"tmpfs space of an earlier test is still used: {free}")
    return kit.miss(tag)
