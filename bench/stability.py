"""Verdict stability under load (../shared/benchmarks.md): load must not change a verdict.

Grades every bank reference, correct alternative (alternatives/) and known-wrong solution
twice, in one run: once alone (the "quiet" leg: one grading at a time) and once under load
(the same gradings, ``BENCH_LOAD_SANDBOXES`` at once, default 8: the load that flips
verdicts is other sandboxes, not host processes). Prints every verdict that differs between
the legs and every one that differs from the package's declared verdict; the headline is the
number of flips (target 0). The machine is shared, so the quiet leg may not be quiet: the raw
samples in bench/results/stability.json keep each grading's wall time and the load average.

    python -m bench stability            # every problem
    BENCH_STABILITY_ONLY=token-bucket,lru-cache python -m bench stability
"""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from grading.judge import Compare, GradeSpec, JudgeError, TestSpec, judge
from problems.package import Package, package_read
from sandbox import Limits
from sandbox.image import ensure

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
BANK = ROOT / "problems" / "bank"
LOAD = int(os.environ.get("BENCH_LOAD_SANDBOXES", "8"))


@dataclass(frozen=True)
class Case:
    slug: str
    solution: str  # "reference", an alternative's or the wrong file's name
    code: str
    declared: str


def spec_for(package: Package, code: str, images: dict[str, str]) -> GradeSpec:
    """The Submit grading of ``code``: every test, as the worker builds it (CPU path)."""
    tests = [
        TestSpec(
            name=t.name,
            input=t.input,
            expected=t.expected,
            tag=t.tag,
            hidden=t.hidden,
            compare=t.compare,
            group=t.group,
        )
        for t in (*package.public_tests, *package.hidden_tests)
    ]
    grading = package.grading
    driver: dict[str, str] = {"kind": grading.driver, "entry": grading.entry}
    if grading.driver == "custom":
        driver["source"] = package.driver_code
    limits = Limits(
        test_wall_seconds=package.limits.test_wall_seconds,
        test_cpu_seconds=package.limits.test_cpu_seconds,
        memory_mb=package.limits.memory_mb,
        output_bytes=package.limits.output_bytes,
    )
    return GradeSpec(
        solution=code,
        driver=driver,
        tests=tests,
        limits=limits,
        compare=Compare(grading.compare, grading.float_rel, grading.float_abs),
        image=images[package.queue],
        checker_code=package.checker_code,
        support_code=package.support_code,
    )


def cases() -> list[tuple[Case, Package]]:
    only = {s for s in os.environ.get("BENCH_STABILITY_ONLY", "").split(",") if s}
    found: list[tuple[Case, Package]] = []
    for folder in sorted(p for p in BANK.iterdir() if (p / "problem.toml").exists()):
        if only and folder.name not in only:
            continue
        package = package_read(folder)
        if not package.kind_spec.runs_code:  # nothing grades a design problem
            continue
        found.append((Case(package.slug, "reference", package.reference_code, "AC"), package))
        for alternative in sorted(folder.glob("alternatives/*.py")):  # correct, written otherwise
            name = f"alternatives/{alternative.name}"
            found.append((Case(package.slug, name, alternative.read_text(encoding="utf-8"), "AC"),
                          package))
        for wrong in package.wrong:
            found.append((Case(package.slug, wrong.file, wrong.code, wrong.verdict), package))
    return found


def grade(case: Case, package: Package, images: dict[str, str]) -> dict[str, object]:
    started = time.monotonic()
    try:
        judgement = judge(spec_for(package, case.code, images))
        verdict = judgement.verdict
        tests = {t.name: t.verdict for t in judgement.tests if t.verdict != "AC"}
    except JudgeError as exc:
        verdict, tests = "IE", {"error": str(exc)[:300]}
    return {
        "slug": case.slug,
        "solution": case.solution,
        "declared": case.declared,
        "verdict": verdict,
        "not_ac": tests,
        "wall_s": round(time.monotonic() - started, 2),
        "load_avg": round(os.getloadavg()[0], 2),
    }


def leg(
    work: list[tuple[Case, Package]], images: dict[str, str], at_once: int
) -> list[dict[str, object]]:
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        return list(pool.map(lambda item: grade(item[0], item[1], images), work))


def main(argv: list[str] | None = None) -> int:
    work = cases()
    flavors = sorted({package.queue for _, package in work})
    images = {flavor: ensure(flavor) for flavor in flavors}
    started = time.monotonic()
    quiet = leg(work, images, 1)
    quiet_s = time.monotonic() - started
    started = time.monotonic()
    loaded = leg(work, images, LOAD)
    loaded_s = time.monotonic() - started
    flips, off = [], []
    for q, lo in zip(quiet, loaded, strict=True):
        name = f"{q['slug']}/{q['solution']}"
        if q["verdict"] != lo["verdict"]:
            flips.append(name)
            print(f"FLIP {name}: quiet {q['verdict']} -> load {lo['verdict']} {lo['not_ac']}")
        for label, row in (("quiet", q), ("load", lo)):
            if row["verdict"] != row["declared"]:
                off.append(f"{label}:{name}")
                print(
                    f"DECLARED {name} ({label}): {row['verdict']}, declared {row['declared']} "
                    f"{row['not_ac']}"
                )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "stability.json").write_text(
        json.dumps(
            {
                "load_sandboxes": LOAD,
                "quiet_seconds": round(quiet_s, 1),
                "load_seconds": round(loaded_s, 1),
                "quiet": quiet,
                "load": loaded,
                "flips": flips,
                "off_declared": off,
            },
            indent=1,
        )
    )
    print(
        f"verdict stability, {len(work)} gradings quiet ({quiet_s:.0f} s) vs {LOAD} at once "
        f"({loaded_s:.0f} s): {len(flips)} flips (target 0), {len(off)} off their declared verdict"
    )
    return 0
