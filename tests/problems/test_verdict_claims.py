"""A checker's message never claims a state that did not occur (issue 36 point 3).

Property: every known-wrong engine of the two batching problems (and the reference, as a
control) runs in process on seeded random workloads; every message the checker gives (each
rule's first violation, and the test's own message) is parsed for the states it claims (what
step() returned, which request was waiting or running, which requests a batch held, when a
request was called back) and each claim is checked against the driver's record, derived here
from the record's raw fields, not through the checker. A message with a step() claim this
test cannot read fails it too: such a sentence must state a fact the record shows. And the
rule the evidence says the message names ("rule") is the rule whose first violation the
message is.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bench.batching import PACKAGE_DIR as CBE_DIR
from bench.batching import Package, load_package, load_solution
from bench.paged_kv import PACKAGE_DIR as PAGED_DIR
from bench.paged_kv import package as paged_package

SEEDS = (7, 31, 99)


def _engines(root: Path) -> list[Path]:
    return [root / "reference.py", *sorted((root / "wrong").glob("*.py"))]


def _workloads(pkg: Package, seed: int) -> list[dict[str, Any]]:
    """Small seeded workloads on the simulated model, from each random test's recipe."""
    out = []
    for test in pkg.public + pkg.hidden:
        recipe = test["input"].get("random")
        if recipe is None:
            continue
        given = dict(test["input"])
        given["model"] = {**(given.get("model") or {}), "tier": "sim"}
        given["random"] = {
            **recipe,
            "seed": random.Random(seed).randrange(10**6) + int(recipe["seed"]),
            "workloads": 4,
        }
        out.extend(pkg.support.expand_workloads(given))
    return out


# --------------------------------------------------------------------------- the record


def _pending(
    pkg: Package, workload: dict[str, Any], record: dict[str, Any], inside_known: bool
) -> dict[str, tuple[int, float]]:
    """Per request id: (first, last) step at whose start it was submitted and not yet called
    back, from the record's callbacks (an entry: [index, step, tokens, id_ok, inside?])."""
    specs = pkg.support.parse_requests(workload)
    first: dict[int, tuple[int, bool]] = {}
    for entry in record["callbacks"]:
        index, step = int(entry[0]), int(entry[1])
        inside = bool(entry[4]) if inside_known and len(entry) > 4 else True
        first.setdefault(index, (step, inside))
    spans: dict[str, tuple[int, float]] = {}
    for spec in specs:
        if spec.after is None:
            start = spec.arrival
        elif spec.after in first:
            step, inside = first[spec.after]
            start = step + 1 if inside else step
        else:
            continue
        end: float = math.inf
        if spec.index in first:
            step, inside = first[spec.index]
            end = step if inside else step - 1
        spans[spec.rid] = (start, end)
    return spans


def _batches(record: dict[str, Any]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for step, owners in record.get("calls", []):
        out.setdefault(int(step), []).extend(int(o) for o in owners)
    return out


def _first_callback(record: dict[str, Any], index: int) -> int | None:
    return next((int(e[1]) for e in record["callbacks"] if int(e[0]) == index), None)


def _rid_index(pkg: Package, workload: dict[str, Any]) -> dict[str, int]:
    return {s.rid: s.index for s in pkg.support.parse_requests(workload)}


# --------------------------------------------------------------------------- the claims

STEP_CBE = re.compile(
    r"step\(\) result wrong at step (\d+): it returned (True|False), but (.+?) "
    r"\(True exactly"
)
STEP_PAGED = re.compile(r"step (\d+): step\(\) returned (True|False), but (.+?): it returns")
PENDING = re.compile(
    r"'([^']+)' was submitted before step (\d+) and "
    r"(never called back|called back at step (\d+))"
)
NONE_PENDING = ("every request submitted by then had been called back",)
OVER = re.compile(r"step (\d+): a batch of (\d+) sequences exceeds capacity (\d+)")
GAP = re.compile(
    r"request '([^']+)' was in the batch at step (\d+) and again at step (\d+), "
    r"but left out of it at step (\d+)"
)
SLOTS = re.compile(r"work conservation broken at step (\d+): (\d+) of (\d+) slots were used")
NEVER = re.compile(r"request '([^']+)' never got its callback")
CALLED = re.compile(r"'([^']+)' was called back at step (\d+)")
BATCH_WAS = re.compile(r"at step (\d+): .*?the batch was \{([^}]*)\}, the statement's schedule")
ENGINE_DECODED = re.compile(
    r"step (\d+): the engine (decoded|ended) (.+?), the prescribed schedule"
)
# Earlier wordings that claimed the statement's schedule as the engine's state.
RETIRED = ("while a request was active", "was active since", "a slot was idle while")


def _claims_hold(
    pkg: Package,
    workload: dict[str, Any],
    record: dict[str, Any],
    message: str,
    *,
    paged: bool,
    seen: Counter[str],
) -> list[str]:
    """What in `message` the record contradicts (empty: every claim holds); `seen` counts
    the claims checked, by kind."""
    wrong = [f"retired wording {w!r}" for w in RETIRED if w in message]
    returns = record.get("returned" if paged else "returns", [])
    spans = _pending(pkg, workload, record, inside_known=not paged)
    index = _rid_index(pkg, workload)
    for found in (STEP_PAGED if paged else STEP_CBE).finditer(message):
        seen["step"] += 1
        step, said, fact = int(found[1]), found[2] == "True", found[3]
        if step >= len(returns) or returns[step] != said:
            wrong.append(f"step() did not return {said} at step {step}")
        pending = {rid for rid, (a, b) in spans.items() if a <= step <= b}
        named = PENDING.search(fact)
        if named:
            rid, start = named[1], int(named[2])
            end = math.inf if named[4] is None else int(named[4])
            if rid not in pending or spans[rid][0] != start:
                wrong.append(f"{rid!r} was not waiting or running at step {step}")
            else:
                steps = [int(e[1]) for e in record["callbacks"] if int(e[0]) == index[rid]]
                if (steps[0] if steps else math.inf) != end:
                    wrong.append(f"{rid!r} was not called back as said")
        elif any(text in fact for text in NONE_PENDING):
            if pending:
                wrong.append(f"{sorted(pending)} were still pending at step {step}")
        elif "nothing was running or waiting" not in fact:
            wrong.append(f"a step() claim this test cannot check: {fact!r}")
    batches = _batches(record)
    for found in OVER.finditer(message):
        seen["over"] += 1
        if len(batches.get(int(found[1]), [])) < int(found[2]):
            wrong.append(f"no batch of {found[2]} at step {found[1]}")
    for found in GAP.finditer(message):
        seen["gap"] += 1
        rid, a, b, gap = found[1], int(found[2]), int(found[3]), int(found[4])
        steps_in = [s for s, owners in batches.items() if index.get(rid) in owners]
        if a not in steps_in or b not in steps_in or gap in steps_in:
            wrong.append(f"{rid!r} was not in the batches as said")
    for found in SLOTS.finditer(message):
        seen["slots"] += 1
        used = len(set(batches.get(int(found[1]), [])))
        if used != int(found[2]):
            wrong.append(f"{used} slots were used at step {found[1]}, not {found[2]}")
    names = {i: rid for rid, i in index.items()}
    for found in BATCH_WAS.finditer(message):
        seen["batch_was"] += 1
        said = {n.strip() for n in found[2].split(",") if n.strip()}
        got = {names[o] for o in batches.get(int(found[1]), []) if o in names}
        if "..." not in found[2] and said != got:
            wrong.append(f"the batch at step {found[1]} was {sorted(got)}, not {sorted(said)}")
    for found in ENGINE_DECODED.finditer(message):
        seen["engine_decoded"] += 1
        step, what = int(found[1]), found[2]
        said = set() if found[3] == "none" else {n.strip().strip("'") for n in found[3].split(", ")}
        if what == "decoded":
            got = {names.get(int(row[1]), "?") for row in record["decode"] if int(row[0]) == step}
        else:
            got = {
                names.get(int(e[0]), "?")
                for e in record["callbacks"]
                if int(e[1]) == step and _first_callback(record, int(e[0])) == step
            }
        if said != got:
            wrong.append(f"the engine {what} {sorted(got)} at step {step}, not {sorted(said)}")
    for found in NEVER.finditer(message):
        seen["never"] += 1
        if any(int(e[0]) == index.get(found[1]) for e in record["callbacks"]):
            wrong.append(f"{found[1]!r} did get a callback")
    for found in CALLED.finditer(message):
        seen["called"] += 1
        steps = [int(e[1]) for e in record["callbacks"] if int(e[0]) == index.get(found[1])]
        if not steps or steps[0] != int(found[2]):
            wrong.append(f"{found[1]!r} was not called back at step {found[2]}")
    return wrong


def _rule_named(evidence: dict[str, Any], message: str, *, paged: bool) -> list[str]:
    """The evidence's "rule" is a broken rule, and (continuous batching, whose message is a
    rule's first violation) the one whose first violation the message states. Paged KV's
    message may name a later violation of its rule (one after a wrong token is not told)."""
    rule = evidence.get("rule")
    rules = evidence.get("rules") or {}
    if not isinstance(rule, str) or not rules.get(rule):
        return [f"the message's rule {rule!r} is not a broken rule of {sorted(rules)}"]
    if paged or message.startswith(rules[rule]):
        return []
    return [f"rule {rule!r} is not the message's rule"]


@pytest.mark.parametrize(
    ("root", "paged"),
    [(CBE_DIR, False), (PAGED_DIR, True)],
    ids=["continuous-batching-engine", "paged-kv-engine"],
)
def test_every_message_of_every_wrong_engine_states_only_what_the_record_shows(
    root: Path, paged: bool
) -> None:
    pkg = paged_package() if paged else load_package()
    problems: list[str] = []
    checked = 0
    seen: Counter[str] = Counter()
    for seed in SEEDS:
        workloads = _workloads(pkg, seed)
        for path in _engines(root):
            solution = load_solution(path)
            for number, workload in enumerate(workloads):
                try:
                    record = json.loads(json.dumps(pkg.driver.run(solution, workload)))
                except Exception:  # an engine that raises has no record
                    continue
                ok, message, evidence = pkg.checker.check(workload, None, record)
                messages = [message, *(m for m in evidence.get("rules", {}).values() if m)]
                found = [
                    w
                    for m in messages
                    for w in _claims_hold(pkg, workload, record, m, paged=paged, seen=seen)
                ]
                if not ok:
                    found += _rule_named(evidence, message, paged=paged)
                checked += len(messages)
                problems += [f"{path.name} seed {seed} workload {number}: {w}" for w in found]
    # Every kind of claim was met, and checked, on these workloads.
    kinds = (
        {"step", "engine_decoded"}
        if paged
        else {"step", "batch_was", "slots", "called", "never", "over", "gap"}
    )
    assert checked > 100 and kinds <= {k for k, n in seen.items() if n}, (checked, seen)
    assert problems == [], problems[:20]
