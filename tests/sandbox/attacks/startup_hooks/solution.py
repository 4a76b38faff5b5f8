import os

import support as kit

PAYLOAD = "import builtins\nbuiltins.ONSITE_ATTACK_HOOK = True\n"
PLACES = [
    "/work/sitecustomize.py", "/work/usercustomize.py", "/work/onsite_attack.pth",
    "/work/json.py", "/work/numpy.py", "/work/ctypes.py", "/work/traceback.py",
    "/tmp/sitecustomize.py", "/tmp/usercustomize.py", "/tmp/onsite_attack.pth",
    "/dev/shm/sitecustomize.py",
    os.path.expanduser("~/.local/lib/python3.11/site-packages/usercustomize.py"),
    os.path.expanduser("~/.local/lib/python3.11/site-packages/onsite_attack.pth"),
]


def solve(tag, *args):
    import builtins

    if getattr(builtins, "ONSITE_ATTACK_HOOK", False):
        return kit.breach("a hook planted by an earlier test ran")
    if tag == "t0":
        for path in PLACES:
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as handle:
                    handle.write(("import builtins; builtins.ONSITE_ATTACK_HOOK = True\n"
                                  if path.endswith(".pth") else PAYLOAD))
            except OSError:
                pass
    return kit.miss(tag)
