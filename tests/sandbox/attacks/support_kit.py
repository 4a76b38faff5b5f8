"""Helpers for the attack programs, sent into the sandbox as the module ``support``.

Every attack is ``solve(tag, *args)``; the suite's tests are (see tests/sandbox/test_attacks.py):

    t0  hidden   args ["t0", <hidden-input canary>]   expected: the worker-secret canary (ENV)
    t1  public   args ["t1"]                          expected: t0's hidden-input canary (IN)
    t2  hidden   args ["t2"]                          expected: a canary kept in the worker (EXP)

No honest program can produce an expected value, so a test that passes means the attack stole
it (inverted test). Attacks that have nothing to steal return ``breach(...)`` when their attack
worked; the suite fails on that marker anywhere in what the sandbox returns.
"""

import re

WANT = {"t0": "ENV", "t1": "IN", "t2": "EXP"}


def wanted(tag):
    """The canary kind whose value would make test ``tag`` pass."""
    return WANT.get(tag, "")


def pattern(tag):
    # Built so that this source text itself never matches (the kind is followed by "[").
    return re.compile(b"ONSITECANARY" + wanted(tag).encode() + b"[0-9a-f]{20}")


def pick(tag, data):
    """The canary that test ``tag`` needs, if ``data`` (bytes or str) holds it."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    match = pattern(tag).search(data)
    return match.group(0).decode() if match else None


def breach(what):
    """The marker an attack returns when it got somewhere it must not (split: see above)."""
    return "ONSITE-" + "BREACH: " + what


def miss(tag):
    """A harmless answer: the attack found nothing."""
    return "nothing-stolen-" + tag
