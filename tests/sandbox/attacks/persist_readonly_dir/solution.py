import os

import support as kit

STASH = "/tmp/onsite_attack_stash"


def solve(tag, *args):
    if tag == "t0":
        os.mkdir(STASH)
        with open(os.path.join(STASH, "input"), "w") as handle:
            handle.write(repr(args))
        os.chmod(STASH, 0o500)  # rmtree can no longer unlink what is inside
        return kit.miss(tag)
    try:
        os.chmod(STASH, 0o700)
        with open(os.path.join(STASH, "input")) as handle:
            return kit.pick(tag, handle.read()) or kit.breach("the stash survived the wipe")
    except OSError:
        return kit.miss(tag)
