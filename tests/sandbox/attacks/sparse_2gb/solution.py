import support as kit


def solve(tag, *args):
    if tag == "t0":
        with open("onsite_attack_sparse.bin", "wb") as handle:
            handle.seek(2 << 30)
            handle.write(b"\0")
        return "sparse file written"
    return kit.miss(tag)
