import os

import support as kit


def solve(tag, *args):
    if tag == "t0":
        os.mkdir("/tmp/onsite_attack_many")
        index = 0
        while True:
            os.close(os.open(f"/tmp/onsite_attack_many/{index}", os.O_CREAT | os.O_WRONLY))
            index += 1
    return kit.miss(tag)
