"""`python -m bench [NAME...]`: run the benchmarks (all by default), ratios measured in one run.

Each benchmark module's `main(argv)` parses only its own arguments (the runner passes none;
`python -m bench.NAME --flag` passes its own). Each writes its raw samples to
bench/results/<name>.json and prints one summary line per figure, its last line the headline
ratio (see ../shared/benchmarks.md).
"""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = (
    "sandbox", "batching", "sessions", "stability", "paged_kv", "contention", "fresh_start",
    "calibration", "matching", "similarity", "similarity_scale",
)


def main(argv: list[str]) -> int:
    names = argv or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(
            f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}",
            file=sys.stderr,
        )
        return 2
    for name in names:
        try:
            module = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as exc:
            print(f"== {name}: not available ({exc})")
            continue
        print(f"== {name}", flush=True)
        code = module.main([])
        if code:
            return int(code)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
