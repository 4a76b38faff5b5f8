import os

import support as kit


def solve(tag, *args):
    found = kit.pick(tag, repr(dict(os.environ)))
    if found:
        return found
    leaked = [k for k in os.environ if any(w in k for w in ("SECRET", "DATABASE", "REDIS",
                                                              "CELERY", "DJANGO", "DOCKER", "AWS"))]
    return kit.breach(f"worker variables in the sandbox: {leaked}") if leaked else kit.miss(tag)
