import os
import socket

import support as kit


def solve(tag, *args):
    found = []
    for path in ("/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
                 "/var/run/docker/containerd/containerd.sock", "/run/podman/podman.sock"):
        if not os.path.exists(path):
            continue
        found.append(path)
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(0.5)
            sock.connect(path)
            sock.sendall(b"GET /containers/json HTTP/1.0\r\n\r\n")
            return kit.breach("docker API answered: " + sock.recv(200).decode("latin1"))
        except OSError:
            pass
    return kit.breach(f"sockets visible: {found}") if found else kit.miss(tag)
