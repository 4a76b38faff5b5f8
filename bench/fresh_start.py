"""Fresh start: every Run fast while a fresh start validates the bank (issue 42.4).

`python -m bench fresh_start` (or `python -m bench.fresh_start --minutes 5 --every 20`) starts
ONE fresh platform the way `make run` does, with bench.contention's start-up (fresh_platform: a
throwaway ONSITE_VAR_DIR and SQLite file, `manage.py migrate`, `loadproblems` of the whole bank,
every version left pending validation, `seeddemo`, then `platform/run.py` with its own Redis and
web port). Nothing else is done to the platform: the bank validates as it does after `make run`
(the beat's sweep hands the pending versions to the background lane).

From the moment the web server answers HTTP, the candidate Runs the token-bucket reference (a cpu
problem, 4 public tests) and the continuous-batching-engine reference (the gpu kind: PyTorch, on
the CPU here) every --every seconds for --minutes minutes, both problems at each tick, each Run
POSTed to /api/submissions (mode "run") and followed on /ws/submissions/<id>/ to its `done`
event (bench.contention.Bench.click_run). A tick does not wait for the Runs of the one before
it: a slow Run delays no click. Each sample is the click-to-verdict with, at the click, the
bank's validation state (versions per state), the slots busy, the runs waiting and the load
average; afterwards its wait for a slot (created to claimed) and its grading (claimed to done).

Prints p50/p95/max per problem against the target (p95 <= 1 s, every Run answered), the Runs
over the target with their state, and the headline last; raw samples go to
bench/results/fresh_start.json. Every process it started is stopped at the end, on error and
on Ctrl-C, and the sandbox containers its workers made are removed (bench.contention).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.contention import (
    GPU_PROBLEM,
    PY,
    ROOT,
    RUN_PROBLEM,
    Bench,
    _django_configured,
    _pool_reports,
    fresh_platform,
    measured_and_written,
    ms,
    run_figures,
    run_split,
    validation_states,
    wait_web,
)

RESULTS = ROOT / "bench" / "results" / "fresh_start.json"
PROBLEMS = (RUN_PROBLEM, GPU_PROBLEM)  # a cpu problem and continuous batching
TARGET_P95_MS = 1000.0


# ------------------------------------------------------------------------------ pure logic


def click_times(minutes: float, every: float) -> list[float]:
    """Seconds after the web answered of every tick: 0, every, 2 x every, ... while inside the
    first `minutes`."""
    if every <= 0:
        raise ValueError("every must be > 0")
    window = minutes * 60.0
    return [k * every for k in range(max(0, math.ceil(window / every)))]


def problem_figures(samples: list[dict[str, Any]], problem: str,
                    target_ms: float = TARGET_P95_MS) -> dict[str, Any]:
    """One problem's Runs: p50/p95/max (nearest rank) of those answered, how many were lost (no
    `done` within the timeout, or refused), and the target: p95 <= target_ms with every Run
    answered (a lost Run is not a fast one). `validating`: the same figures of the Runs
    clicked while a validation of the bank ran (the bank's state at the click)."""
    mine = [s for s in samples if s.get("problem") == problem]
    answered = [s["latency_ms"] for s in mine if s.get("latency_ms") is not None]
    figures = run_figures(answered)
    lost = len(mine) - len(answered)
    figures.update({
        "clicked": len(mine),
        "lost": lost,
        "over_target": sum(1 for v in answered if v > target_ms),
        "target_ms": target_ms,
        "met": bool(answered) and lost == 0 and figures["p95_ms"] <= target_ms,
        "validating": run_figures([s["latency_ms"] for s in mine if validating(s)
                                   and s.get("latency_ms") is not None]),
    })
    return figures


def validating(sample: dict[str, Any]) -> bool:
    """Whether a validation of the bank ran at the click."""
    return bool((sample.get("validation_states") or {}).get("running"))


def slow_runs(samples: list[dict[str, Any]], target_ms: float = TARGET_P95_MS
              ) -> list[dict[str, Any]]:
    """The Runs over the target or lost, in click order, with what explains them."""
    keys = ("t", "problem", "latency_ms", "wait_ms", "grading_ms", "validation_states",
            "busy", "waiting", "load_avg", "error")
    return [{k: s.get(k) for k in keys if k in s} for s in sorted(samples, key=lambda s: s["t"])
            if s.get("latency_ms") is None or s["latency_ms"] > target_ms]


# ------------------------------------------------------------------------------ measuring


async def measure(bench: Bench, times: list[float]) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=16))
    await wait_web(bench.base, 120)
    web_up = bench.now()
    codes = {RUN_PROBLEM: bench.seeded.run_code, GPU_PROBLEM: bench.seeded.gpu_code}
    pools = await asyncio.to_thread(_pool_reports)
    bench.note("web answered", web_up_s=round(web_up, 2), worker_processes=pools)
    origin = time.perf_counter()
    clicks: list[asyncio.Task[dict[str, Any]]] = []
    for tick, at in enumerate(times):
        await asyncio.sleep(max(0.0, origin + at - time.perf_counter()))
        states = await bench.db(validation_states)
        clicks += [asyncio.create_task(bench.click_run(
            "fresh", problem, codes[problem], tick=tick, validation_states=states,
            since_web_s=round(time.perf_counter() - origin, 3))) for problem in PROBLEMS]
        bench.note("tick", tick=tick, validation=states)
    done = await asyncio.gather(*clicks)
    return {"web_up_s": round(web_up, 3), "worker_processes_at_web_up": pools,
            "validation_states_after": await bench.db(validation_states),
            "answered": sum(1 for s in done if s.get("latency_ms") is not None)}


def report(bench: Bench, measured: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    runs = bench.runs
    splits = run_split([r["id"] for r in runs if "id" in r])
    for sample in runs:
        sample.update(splits.get(sample.get("id", -1), {}))
    loads = [r["load_avg"] for r in runs]
    return {
        "config": config,
        "measured": measured,
        "load_avg": {"min": min(loads, default=None), "max": max(loads, default=None)},
        "problems": {p: problem_figures(runs, p) for p in PROBLEMS},
        "slow": slow_runs(runs),
        "samples": {"runs": runs, "events": bench.events},
    }


def print_summary(data: dict[str, Any], out: Path) -> None:
    config, measured, load = data["config"], data.get("measured") or {}, data["load_avg"]
    print(f"fresh start: the web answered {measured.get('web_up_s')} s after platform/run.py "
          f"started; bank validation at the first click "
          f"{next((r.get('validation_states') for r in data['samples']['runs']), {})}, after "
          f"the last Run {measured.get('validation_states_after')}")
    for problem, fig in data["problems"].items():
        print(f"Run click-to-verdict, {problem}, every {config['every_s']:g} s over the first "
              f"{config['minutes']:g} min: p50 {ms(fig['p50_ms'])}, p95 {ms(fig['p95_ms'])}, max "
              f"{ms(fig['max_ms'])} (n={fig['n']}, lost {fig['lost']}, over 1 s "
              f"{fig['over_target']}); of them clicked while a validation ran: p50 "
              f"{ms(fig['validating']['p50_ms'])}, p95 {ms(fig['validating']['p95_ms'])}, max "
              f"{ms(fig['validating']['max_ms'])} (n={fig['validating']['n']})")
    for slow in data["slow"]:
        latency = slow.get("latency_ms")
        print(f"  over the target: t={slow['t']:.1f} s {slow['problem']} "
              f"{ms(latency) if latency is not None else 'lost'} (waited "
              f"{ms(slow.get('wait_ms') or float('nan'))}, graded in "
              f"{ms(slow.get('grading_ms') or float('nan'))}; validation "
              f"{slow.get('validation_states')}, busy {slow.get('busy')}, load "
              f"{slow.get('load_avg'):.1f})" + (f" {slow['error']}" if slow.get("error") else ""))
    print(f"load average (1 min) at the clicks: min {load['min']}, max {load['max']} (before the "
          f"start {config['load_avg_before']}); raw samples in {out}")
    verdicts = ", ".join(
        f"{p} {ms(f['p95_ms'])} ({'met' if f['met'] else 'NOT met'})"
        for p, f in data["problems"].items())
    print(f"fresh start: Run p95 over the first {config['minutes']:g} min, target <= "
          f"{TARGET_P95_MS / 1000:g} s: {verdicts}")


# ------------------------------------------------------------------------------ main


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.fresh_start", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0,
                        help="how long after the web answers the ticks go on")
    parser.add_argument("--every", type=float, default=20.0,
                        help="seconds between ticks (each tick Runs every problem once)")
    parser.add_argument("--client-nice", type=int, default=-10,
                        help="nice value of this benchmark's own client, where it may raise its "
                        "priority: the browsers it stands in for are not on this host")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--keep", action="store_true",
                        help="keep the throwaway directory (logs, database)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse([] if argv is None else list(argv))
    if _django_configured():
        # Another benchmark of this process already set Django up on its own database
        # (`python -m bench` runs them in turn): measure in a fresh interpreter.
        return subprocess.call([PY, "-m", "bench.fresh_start", *(argv or [])], cwd=ROOT)
    if shutil.which("redis-server") is None:
        print("redis-server is not installed", file=sys.stderr)
        return 2
    times = click_times(args.minutes, args.every)
    try:
        with fresh_platform("fresh_start", args.client_nice) as platform:
            platform.keep = args.keep
            assert platform.seeded is not None
            bench = Bench(env=platform.env, seeded=platform.seeded, web_port=platform.web_port,
                          slots=platform.slots, started=time.perf_counter(),
                          deadline=float("inf"), rate=0.0)
            config = {"minutes": args.minutes, "every_s": args.every, "ticks": len(times),
                      "problems": list(PROBLEMS), "target_p95_ms": TARGET_P95_MS,
                      "client_nice": os.nice(0), "slots": platform.slots,
                      "sweep_interval_s": platform.env.get("ONSITE_SWEEP_INTERVAL_SECONDS",
                                                           "30"),
                      "cpus": os.cpu_count(), "load_avg_before": platform.load_avg_before,
                      "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), **platform.timings}
            return measured_and_written(
                platform, lambda: measure(bench, times),
                lambda measured: report(bench, measured, config), config, args.out,
                print_summary)
    except KeyboardInterrupt:
        print("fresh_start: interrupted; stopping the platform", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
