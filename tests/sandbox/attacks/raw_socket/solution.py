import socket

import support as kit


def solve(tag, *args):
    opened = []
    for family, kind, proto in ((socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
                                (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW),
                                (socket.AF_PACKET, socket.SOCK_RAW, 0x0300),
                                (socket.AF_NETLINK, socket.SOCK_RAW, 0)):
        try:
            socket.socket(family, kind, proto).close()
            if family != socket.AF_NETLINK:
                opened.append((family, proto))
        except OSError:
            pass
    return kit.breach(f"raw sockets: {opened}") if opened else kit.miss(tag)
