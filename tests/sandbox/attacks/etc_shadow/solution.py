import os

import support as kit


def solve(tag, *args):
    readable = []
    for path in ("/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/root/.bash_history",
                 "/root/.ssh/id_rsa", "/root/.docker/config.json"):
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        found = kit.pick(tag, data)
        if found:
            return found
        readable.append(path)
    try:
        readable += ["/root: " + ",".join(os.listdir("/root"))]
    except OSError:
        pass
    return kit.breach(f"readable: {readable}") if readable else kit.miss(tag)
