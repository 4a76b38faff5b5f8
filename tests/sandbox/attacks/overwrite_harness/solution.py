import os

import support as kit

TARGETS = [
    "/opt/onsite/harness/runner.py",
    "/opt/onsite/harness/evil.py",
    "/usr/local/lib/python3.11/dist-packages/numpy/__init__.py",
    "/usr/local/lib/python3.11/dist-packages/evil.pth",
    "/usr/lib/python3.11/json/__init__.py",
    "/usr/lib/python3.11/sitecustomize.py",
    "/usr/bin/python3",
    "/etc/hosts",
    "/etc/resolv.conf",
    "/etc/hostname",
    "/etc/passwd",
]


def solve(tag, *args):
    done = []
    for path in TARGETS:
        try:
            with open(path, "a") as handle:
                handle.write("\n# onsite_attack\n")
            done.append("wrote " + path)
        except OSError:
            pass
        try:
            os.chmod(path, 0o777)
            done.append("chmod " + path)
        except OSError:
            pass
    try:
        os.rename("/opt/onsite/harness/runner.py", "/opt/onsite/harness/old.py")
        done.append("renamed the harness")
    except OSError:
        pass
    return kit.breach(f"modified: {done}") if done else kit.miss(tag)
