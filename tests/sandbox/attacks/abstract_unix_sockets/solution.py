import socket

import support as kit


def solve(tag, *args):
    names = []
    try:
        with open("/proc/net/unix") as table:
            for line in list(table)[1:]:
                fields = line.split()
                if len(fields) >= 8 and fields[7].startswith("@"):
                    names.append(fields[7][1:])
    except OSError:
        pass
    reached = []
    for name in names:
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(0.2)
            sock.connect("\0" + name)
            reached.append(name)
        except OSError:
            pass
    return kit.breach(f"abstract sockets: {reached}") if reached else kit.miss(tag)
