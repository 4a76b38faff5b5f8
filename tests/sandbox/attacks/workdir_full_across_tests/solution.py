import os

import support as kit


def solve(tag, *args):
    if tag == "t0":
        os.mkdir("/work/onsite_attack_locked")
        try:
            with open("/work/onsite_attack_locked/ballast", "wb") as handle:
                while True:
                    handle.write(b"z" * (1 << 20))
        except OSError:
            pass
        try:  # then use up the inodes as well
            index = 0
            while True:
                os.close(os.open(f"/work/onsite_attack_locked/{index}", os.O_CREAT | os.O_WRONLY))
                index += 1
        except OSError:
            pass
        os.chmod("/work/onsite_attack_locked", 0o500)
        return "working dir filled and locked"
    if os.path.exists("/work/onsite_attack_locked"):
        return kit.breach("a directory of an earlier test survived the wipe of /work")
    return kit.miss(tag)
