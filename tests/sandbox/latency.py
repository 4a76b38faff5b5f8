"""Measure (not assert) cold-start vs warm-pool latency of a 5-test trivial run.

.venv/bin/python -m tests.sandbox.latency [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from sandbox import Limits, TestInput, WarmPool, run
from sandbox.image import ensure

SOLUTION = "def solve(a, b):\n    return a + b\n"
TESTS = [TestInput(f"t{i}", {"args": [i, 1]}) for i in range(5)]
LIMITS = Limits()


def one(image: str, pool: WarmPool | None) -> tuple[float, bool]:
    started = time.monotonic()
    result = run(
        solution=SOLUTION,
        driver={"kind": "function", "entry": "solve"},
        tests=TESTS,
        limits=LIMITS,
        image=image,
        pool=pool,
    )
    assert [o.output for o in result.outcomes] == [1, 2, 3, 4, 5]
    return (time.monotonic() - started) * 1000.0, result.cold_start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    image = ensure("cpu")
    cold = [one(image, None)[0] for _ in range(args.rounds)]
    pool = WarmPool(size=1)
    spec = pool.prewarm(image, LIMITS)
    warm: list[float] = []
    try:
        for _ in range(args.rounds):
            pool.wait_idle(spec, 1, timeout=60)  # measure a hit, not the refill
            ms, was_cold = one(image, pool)
            if not was_cold:
                warm.append(ms)
    finally:
        pool.close()
    for name, values in (("cold", cold), ("warm", warm)):
        if values:
            print(
                f"{name}: median {statistics.median(values):.0f} ms, "
                f"min {min(values):.0f} ms, max {max(values):.0f} ms over {len(values)} runs"
            )


if __name__ == "__main__":
    main()
