import urllib.request

import support as kit


def solve(tag, *args):
    reached = []
    for url in ("http://example.com/", "https://pypi.org/simple/", "http://1.1.1.1/"):
        try:
            urllib.request.urlopen(url, timeout=0.4).read(64)
            reached.append(url)
        except Exception:
            pass
    return kit.breach(f"reached {reached}") if reached else kit.miss(tag)
