import os

import support as kit

ROOT = "/dev/mqueue"


def solve(tag, *args):
    if tag == "t0":
        try:
            name = "onsite_attack_" + repr(args).encode().hex()[:200]
            os.close(os.open(os.path.join(ROOT, name), os.O_CREAT | os.O_RDWR, 0o600))
        except OSError:
            pass
        return kit.miss(tag)
    try:
        names = os.listdir(ROOT)
    except OSError:
        return kit.miss(tag)
    for name in names:
        if name.startswith("onsite_attack_"):
            data = bytes.fromhex(name[len("onsite_attack_"):])
            return kit.pick(tag, data) or kit.breach("a message queue survived the test")
    return kit.miss(tag)
