import os
import socket
import time

import support as kit

ADDRESS = "\0onsite_attack_daemon"


def serve(secret):
    os.setsid()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(ADDRESS)
    server.listen(5)
    while True:
        conn, _ = server.accept()
        conn.sendall(secret.encode())
        conn.close()


def solve(tag, *args):
    if tag == "t0":
        if os.fork() == 0:
            if os.fork() == 0:
                try:
                    serve(str(args))
                finally:
                    os._exit(0)
            os._exit(0)
        os.wait()
        time.sleep(0.2)  # let the daemon bind before this test ends
        return "daemon started"
    try:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(0.5)
        client.connect(ADDRESS)
        data = client.recv(4096)
    except OSError:
        return kit.miss(tag)
    return kit.pick(tag, data) or kit.breach("the daemon of an earlier test is still alive")
