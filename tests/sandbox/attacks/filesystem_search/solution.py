import os
import time

import support as kit

SKIP = ("/proc", "/sys", "/dev", "/usr/local/lib/python3.11/dist-packages", "/usr/lib/python3",
        "/usr/share/zoneinfo")
# Names of the files of a problem package, of a worker's settings and of its secrets.
SUSPECT = ("hidden.json", "public.json", "expected", "problem.toml", "reference.py",
           "checker.py", "secret_key", ".env", "settings.py", "onsite_planted")


def solve(tag, *args):
    deadline = time.monotonic() + 1.2
    names = []
    for root, dirs, files in os.walk("/", onerror=lambda e: None):
        if time.monotonic() > deadline:
            break
        dirs[:] = [d for d in dirs if not os.path.join(root, d).startswith(SKIP)]
        for name in files:
            path = os.path.join(root, name)
            if any(s in name.lower() for s in SUSPECT) and not path.startswith("/opt/onsite"):
                names.append(path)
            try:
                if os.path.getsize(path) > (1 << 20):
                    continue
                with open(path, "rb") as handle:
                    found = kit.pick(tag, handle.read())
            except OSError:
                continue
            if found:
                return found
    names = [n for n in names if not n.startswith(("/work/", "/tmp/"))]
    return kit.breach(f"suspicious files: {names[:20]}") if names else kit.miss(tag)
