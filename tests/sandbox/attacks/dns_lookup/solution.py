import socket

import support as kit

QUERY = bytes.fromhex("abcd01000001000000000000076578616d706c6503636f6d0000010001")


def solve(tag, *args):
    reached = []
    for name in ("example.com", "redis", "db", "host.docker.internal", "localhost"):
        try:
            address = socket.getaddrinfo(name, 80)[0][4][0]
            if not address.startswith(("127.", "::1")):
                reached.append(f"{name}={address}")
        except OSError:
            pass
    for server in ("8.8.8.8", "1.1.1.1", "172.17.0.1"):
        try:
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.settimeout(0.3)
            sock.sendto(QUERY, (server, 53))
            sock.recv(512)
            reached.append(server)
        except OSError:
            pass
    return kit.breach(f"DNS works: {reached}") if reached else kit.miss(tag)
