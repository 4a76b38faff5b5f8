import socket

import support as kit

PORTS = (6379, 5432, 8000, 8001, 2375, 2376, 5672, 11211)
HOSTS = ("127.0.0.1", "172.17.0.1", "172.18.0.1", "10.0.0.1", "192.168.0.1")


def solve(tag, *args):
    reached = []
    for host in HOSTS:
        for port in PORTS:
            try:
                socket.create_connection((host, port), timeout=0.05).close()
                reached.append(f"{host}:{port}")
            except OSError:
                pass
    return kit.breach(f"connected to {reached}") if reached else kit.miss(tag)
