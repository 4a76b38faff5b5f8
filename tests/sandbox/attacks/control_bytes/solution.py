import sys

NASTY = "a\x00b\x1b[2J\x1b]0;pwned\x07\u202eevil\u202c\ufeff\x7f\r\n\udc80\ud800"


def solve(tag, *args):
    sys.stdout.flush()
    sys.stdout.buffer.write(b"\xff\xfe\x00\xc3(\xed\xa0\x80 \x1b[31mred\n")
    sys.stdout.buffer.flush()
    print(NASTY.encode("utf-8", "surrogatepass").decode("utf-8", "replace"), file=sys.stderr)
    return {NASTY: [NASTY, "\x00" * 8], "k\x00": NASTY}
