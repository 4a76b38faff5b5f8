"""The studio's time-limit calibration on a quiet and a loaded machine (../shared/benchmarks.md).

A validation suggests each problem's per-test limit from the reference's slowest test
(`studio.validation.timing_calibrate`). It must suggest the same limit whether the machine is
quiet or busy, or an author publishes a limit that only holds on the day it was measured.

Grades each chosen bank reference (every test, one grading at a time) in two legs of one run:
quiet, then with an outside CPU hog beside it (``BENCH_HOG_PER_CORE`` busy processes per core at
normal priority, default 2). For each leg it calibrates three ways: as the studio does (the
slowest tests graded again, each counting for its least CPU time: `studio.validation`), from
one grading's CPU time (the method before) and from one grading's wall time (the one before
that), and prints the ratio of the loaded leg's suggestion to the quiet one's. The suggestion
is shown before the package's floor (`TIME_FLOOR_SECONDS`): the floor would hide the drift.
Target: the studio's suggestion within ±20 %.

    python -m bench calibration
    BENCH_CALIBRATION_ONLY=token-bucket python -m bench calibration
"""

from __future__ import annotations

import json
import multiprocessing
import os
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager

from bench.stability import BANK, RESULTS, spec_for
from grading.judge import GradeSpec, Judgement, judge
from problems.package import Package, package_read
from sandbox.image import ensure
from studio.validation import RETIMES, TIME_MULTIPLIER, least_cpu_ms, retime_spec

DEFAULT_SLUGS = ("token-bucket", "lru-cache", "sliding-window-p99", "lpt-makespan")
HOG_PER_CORE = int(os.environ.get("BENCH_HOG_PER_CORE", "2"))
ROUNDS = int(os.environ.get("BENCH_CALIBRATION_ROUNDS", "2"))


def _spin(stop: multiprocessing.synchronize.Event) -> None:  # pragma: no cover - a hog
    while not stop.is_set():
        sum(i * i for i in range(10_000))


@contextmanager
def cpu_hog(per_core: int) -> Iterator[int]:
    """`per_core` busy processes per core at normal priority until the block ends."""
    stop = multiprocessing.Event()
    count = per_core * (os.cpu_count() or 1)
    procs = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(count)]
    for proc in procs:
        proc.start()
    try:
        yield count
    finally:
        stop.set()
        for proc in procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()


def raw_suggestion_seconds(judgement: Judgement, *, field: str) -> float:
    """TIME_MULTIPLIER × the slowest test by `field` (cpu_ms or time_ms), before floor/rounding."""
    slowest = max((float(getattr(t, field)) for t in judgement.tests), default=0.0)
    return TIME_MULTIPLIER * slowest / 1000.0


def packages() -> list[Package]:
    only = [s for s in os.environ.get("BENCH_CALIBRATION_ONLY", "").split(",") if s]
    slugs = only or [s for s in DEFAULT_SLUGS if (BANK / s / "problem.toml").exists()]
    return [package_read(BANK / slug) for slug in slugs]


def studio_suggestion_seconds(spec: GradeSpec, judgement: Judgement) -> float:
    """What the studio's validation suggests (studio.services.validations.reference_retimed
    and studio.validation.timing_calibrate), before the floor and the rounding."""
    again = retime_spec(spec, judgement)
    retimed = [judge(again) for _ in range(RETIMES)] if again else []
    least = least_cpu_ms([judgement, *retimed])
    return TIME_MULTIPLIER * max(least.values(), default=0.0) / 1000.0


def leg(work: list[Package], images: dict[str, str]) -> dict[str, dict[str, float]]:
    """Each problem's suggestion three ways: the median over ROUNDS validations."""
    out: dict[str, dict[str, float]] = {}
    for package in work:
        studio, cpu, wall = [], [], []
        for _ in range(ROUNDS):
            spec = spec_for(package, package.reference_code, images)
            judgement = judge(spec)
            studio.append(studio_suggestion_seconds(spec, judgement))
            cpu.append(raw_suggestion_seconds(judgement, field="cpu_ms"))
            wall.append(raw_suggestion_seconds(judgement, field="time_ms"))
        out[package.slug] = {
            "studio_s": round(statistics.median(studio), 4),
            "cpu_s": round(statistics.median(cpu), 4),
            "wall_s": round(statistics.median(wall), 4),
            "load_avg": round(os.getloadavg()[0], 2),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    work = packages()
    images = {flavor: ensure(flavor) for flavor in sorted({p.queue for p in work})}
    quiet = leg(work, images)
    with cpu_hog(HOG_PER_CORE) as hogs:
        time.sleep(1.0)  # let the hog reach every core
        loaded = leg(work, images)
    rows: list[dict[str, object]] = []
    drift: dict[str, list[float]] = {"studio_s": [], "cpu_s": [], "wall_s": []}
    for slug in quiet:
        q, lo = quiet[slug], loaded[slug]
        ratios = {k: lo[k] / q[k] if q[k] else float("nan") for k in drift}
        rows.append({"slug": slug, "quiet": q, "loaded": lo,
                     "ratios": {k: round(v, 3) for k, v in ratios.items()}})
        print(f"{slug}: suggestion as the studio makes it {q['studio_s']:.3f} s quiet, "
              f"{lo['studio_s']:.3f} s loaded (x{ratios['studio_s']:.2f}); from one grading's "
              f"CPU {q['cpu_s']:.3f} s, {lo['cpu_s']:.3f} s (x{ratios['cpu_s']:.2f}); from wall "
              f"{q['wall_s']:.3f} s, {lo['wall_s']:.3f} s (x{ratios['wall_s']:.2f})")
        for k, ratio in ratios.items():
            drift[k].append(abs(ratio - 1))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "calibration.json").write_text(
        json.dumps({"hog_processes": hogs, "rounds": ROUNDS, "retimes": RETIMES, "rows": rows},
                   indent=1)
    )
    worst = {k: max(v) for k, v in drift.items()}
    print(f"suggested limit, loaded ({hogs} hog processes) vs quiet: as the studio makes it "
          f"(least CPU of the slowest tests' {1 + RETIMES} gradings) within "
          f"{worst['studio_s']:.0%} "
          f"(target 20 %); from one grading's CPU time {worst['cpu_s']:.0%}; from wall time "
          f"{worst['wall_s']:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
