import socket

import support as kit


def solve(tag, *args):
    reached = []
    for family, host in ((socket.AF_INET, "169.254.169.254"), (socket.AF_INET6, "fd00:ec2::254")):
        try:
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.settimeout(0.3)
            sock.connect((host, 80))
            reached.append(host)
        except OSError:
            pass
    return kit.breach(f"metadata reachable: {reached}") if reached else kit.miss(tag)
