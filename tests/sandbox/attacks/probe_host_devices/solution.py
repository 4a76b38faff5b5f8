import os
import stat

import support as kit

DANGEROUS = ("/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg", "/dev/kvm", "/dev/fuse",
             "/dev/net/tun", "/dev/sda", "/dev/vda", "/dev/nvme0n1", "/dev/loop0", "/dev/tty0")


def solve(tag, *args):
    opened = []
    for path in DANGEROUS:
        try:
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
            opened.append(path)
        except OSError:
            pass
    blocks = []
    for name in os.listdir("/dev"):
        try:
            if stat.S_ISBLK(os.stat(os.path.join("/dev", name)).st_mode):
                blocks.append(name)
        except OSError:
            pass
    found = opened + blocks
    return kit.breach(f"host devices: {found}") if found else kit.miss(tag)
