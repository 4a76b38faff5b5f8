"""paged-kv-engine: the package's driver, checker, support and oracle, run in-process.

The problem folder has dashes in its name, so its modules are loaded by path (bench/paged_kv.py
uses bench/batching.py's loader, which installs the package's support.py as `support` the way
the sandbox harness and the worker do). The real sandbox run is test_bank_grading.py -k paged;
these tests pin the grading logic: the oracle reproduces the statement's worked example, the
checker names the first violating step, and the PyTorch tier reads its KV cache through the
block table. The reference and each known-wrong engine (the hidden groups it must fail, the
words of its failure: problem.toml [[wrong]] groups and says) are graded once, there.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
import types
from pathlib import Path
from typing import Any

import pytest

from bench.batching import Package, grade, grade_all, load_solution
from bench.paged_kv import PACKAGE_DIR, package

# Minutes of CPU (a server, or PyTorch engines): the full suite, not `make test-fast`.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
META = tomllib.loads((PACKAGE_DIR / "problem.toml").read_text(encoding="utf-8"))
ALL_TESTS = [
    *json.loads((PACKAGE_DIR / "tests" / "public.json").read_text(encoding="utf-8")),
    *json.loads((PACKAGE_DIR / "tests" / "hidden.json").read_text(encoding="utf-8")),
]


@pytest.fixture(scope="module")
def pkg() -> Package:
    return package()


@pytest.fixture(scope="module")
def reference() -> types.ModuleType:
    return load_solution(PACKAGE_DIR / "reference.py")


def _by_name(name: str) -> dict[str, Any]:
    return next(t for t in ALL_TESTS if t["name"] == name)


def test_suites_cover_every_group_and_both_tiers(pkg: Package) -> None:
    groups = {t["input"]["group"] for t in pkg.hidden}
    tiers = {pkg.support.model_config(t["input"])["tier"] for t in pkg.hidden}

    assert groups == {
        "correctness",
        "exactly_once",
        "blocks",
        "budget",
        "preemption",
        "edge",
        "throughput",
        "random_stops",
        "random_schedules",
    }
    assert {t["tag"] for t in pkg.hidden} == {"correctness", "edge_cases", "performance"}
    assert tiers == {"sim", "torch"}
    assert all(pkg.support.model_config(t["input"])["tier"] == "sim" for t in pkg.public)


def test_starter_does_not_pass(pkg: Package) -> None:
    results = grade_all(pkg, load_solution(PACKAGE_DIR / "starter.py"), hidden=False)

    assert {r.verdict for r in results} == {"RE"}


def test_every_wrong_engine_is_listed_with_a_target() -> None:
    listed = {w["file"] for w in META["wrong"]}
    on_disk = {f"wrong/{p.name}" for p in (PACKAGE_DIR / "wrong").glob("*.py")}

    assert listed == on_disk
    assert len(listed) >= 6
    # Each names the hidden groups it must fail and the words of its failure (checked by
    # tests/problems/test_bank_grading.py, where each is graded once, in the sandbox).
    assert all(w["groups"] and w["says"] for w in META["wrong"])


def _schedule_rows(pkg: Package, test_input: dict[str, Any]) -> list[tuple[Any, ...]]:
    support = pkg.support
    specs = support.parse_requests(test_input)
    rid = {s.index: s.rid for s in specs}
    lengths = [s.max_tokens for s in sorted(specs, key=lambda s: s.index)]
    steps = support.schedule(specs, lengths, support.limits_of(test_input))
    return [
        (
            [rid[i] for i in s.decode],
            [(rid[i], a, m) for i, a, m in s.prefill],
            [rid[i] for i in s.preempted],
            [rid[i] for i in s.ended],
            s.used,
        )
        for s in steps
    ]


def test_oracle_reproduces_the_statement_example(pkg: Package) -> None:
    # num_blocks 3, block_size 2, budget 4: A (3 + 3 tokens), B (2 + 2), C (1 + 2).
    rows = _schedule_rows(pkg, _by_name("the statement's example")["input"])

    assert rows == [
        ([], [("A", 0, 3), ("B", 0, 1)], [], [], 3),
        (["A"], [("B", 1, 1)], [], [], 3),
        (["A"], [], ["B"], ["A"], 0),  # A needs a third block: B, the newest, is preempted
        ([], [("B", 0, 3), ("C", 0, 1)], [], ["B"], 1),  # recompute of B's 2 + 1 tokens
        (["C"], [], [], ["C"], 0),
    ]


def test_oracle_budget_of_one(pkg: Package) -> None:
    # One block of 3 slots, budget 1: max_tokens 0 ends at admission with no block and no
    # budget; z waits for the only block (FIFO), then its prompt of 2 takes one token per step.
    test_input = {
        "num_blocks": 1,
        "block_size": 3,
        "token_budget": 1,
        "requests": [
            {"id": "x", "prompt": [1, 2], "max_tokens": 0},
            {"id": "y", "prompt": [1], "max_tokens": 1},
            {"id": "z", "prompt": [3, 4], "max_tokens": 1},
        ],
    }

    assert _schedule_rows(pkg, test_input) == [
        ([], [("y", 0, 1)], [], ["x", "y"], 0),
        ([], [("z", 0, 1)], [], [], 1),
        ([], [("z", 1, 1)], [], ["z"], 0),
    ]


def test_oracle_a_sequence_can_preempt_itself(pkg: Package) -> None:
    # B (newest) needs a second block at position 2 and none is free: B is its own victim, A
    # decodes and ends, and B is recomputed over prompt + its 1 token one step later.
    test_input = {
        "num_blocks": 2,
        "block_size": 2,
        "token_budget": 4,
        "requests": [
            {"id": "A", "prompt": [1], "max_tokens": 2},
            {"id": "B", "prompt": [2, 3], "max_tokens": 2},
        ],
    }

    assert _schedule_rows(pkg, test_input) == [
        ([], [("A", 0, 1), ("B", 0, 2)], [], [], 2),
        (["A"], [], ["B"], ["A"], 0),
        ([], [("B", 0, 3)], [], ["B"], 0),
    ]


def test_static_baseline_needs_more_steps(pkg: Package) -> None:
    support = pkg.support
    test = _by_name("throughput: 40 requests, simulated")["input"]
    specs = support.parse_requests(test)
    lengths = [s.max_tokens for s in sorted(specs, key=lambda s: s.index)]
    limits = support.limits_of(test)

    paged = support.work_steps(support.schedule(specs, lengths, limits))
    static = support.work_steps(support.schedule(specs, lengths, limits, policy="static"))

    assert static > 1.5 * paged


def _torch_model(pkg: Package, num_blocks: int = 8, block_size: int = 4) -> Any:
    support = pkg.support
    config = support.model_config({"model": {"tier": "torch", "seed": 7}})
    return support.build_model(config, support.Limits(num_blocks, block_size, 64), "cpu")


def test_torch_paged_attention_matches_full_recompute(pkg: Package) -> None:
    model = _torch_model(pkg)
    prompt = [5, 9, 2, 33, 17, 4, 60]
    table = [6, 1, 3]  # scattered blocks, in table order
    # Chunked prefill (3 + 4 tokens), then two decodes through the same table.
    model.prefill("a", prompt[:3], table, 0)
    first = model.prefill("a", prompt[3:], table, 3)
    second = model.decode([("a", first, 7, table)])[0]
    third = model.decode([("a", second, 8, table)])[0]

    alone = [
        int(model.logits_full([prompt + gen]).argmax()) for gen in ([], [first], [first, second])
    ]
    assert [first, second, third] == alone


def test_torch_attention_reads_the_pool_a_stale_block_changes_tokens(pkg: Package) -> None:
    model = _torch_model(pkg)
    prompt = [5, 9, 2, 33, 17, 4, 60, 8]
    table = [0, 1]
    token = model.prefill("a", prompt, table, 0)
    clean = model.logits_full([[*prompt, token]])[0]
    model.prefill("intruder", [1, 1, 1, 1], [0], 0)  # another sequence overwrites block 0
    stale_logits = model._paged_logits([([token], 8, [0, 1, 2])])[0]

    assert float((stale_logits - clean).abs().max()) > 1e-2


def test_sim_model_a_shared_block_changes_tokens(pkg: Package) -> None:
    support = pkg.support
    model = support.build_model(support.model_config({}), support.Limits(4, 2, 8))
    prompt = [3, 1, 4, 1]
    token = model.prefill("a", prompt, [0, 1], 0)
    assert token == model.next_with_margin(prompt)[0]
    model.prefill("b", [7, 7], [1], 0)

    assert model.decode([("a", token, 4, [0, 1, 2])]) != [
        model.next_with_margin([*prompt, token])[0]
    ]


def test_model_refuses_bad_tables_with_a_clear_error(pkg: Package) -> None:
    model = _torch_model(pkg, num_blocks=2, block_size=2)

    with pytest.raises(ValueError, match="outside the pool"):
        model.prefill("a", [1, 2], [5], 0)
    with pytest.raises(ValueError, match="block table has 1"):
        model.prefill("a", [1, 2, 3], [0], 0)
    with pytest.raises(ValueError, match="request_id, token, position"):
        model.decode([("a", 1)])


def test_a_request_larger_than_the_pool_is_refused(pkg: Package) -> None:
    bad = {
        "num_blocks": 2,
        "block_size": 2,
        "token_budget": 4,
        "requests": [{"id": "big", "prompt": [1, 2, 3], "max_tokens": 2}],
    }

    with pytest.raises(ValueError, match="does not fit in the whole KV pool"):
        pkg.support.parse_requests(bad)


def test_shared_blocks_show_up_as_wrong_tokens_on_the_torch_tier(pkg: Package) -> None:
    support = pkg.support
    test = _by_name("blocks: heavy reuse, 8 blocks of 4")["input"]
    wrong = load_solution(PACKAGE_DIR / "wrong" / "double_allocation.py")
    output = pkg.driver.run(wrong, test)
    config = support.model_config(test)
    model = support.build_model(config, support.limits_of(test), "cpu")

    differ = 0
    for spec in support.parse_requests(test):
        gen = output["generated"][spec.index]
        differ += gen != support.Continuation(model, spec.prompt).extend_to(len(gen))[: len(gen)]
    assert differ >= 1


class _Runaway:
    """An engine that never goes idle: step() always claims there is work."""

    def __init__(self, model: Any, num_blocks: int, block_size: int, budget: int) -> None:
        self.n = num_blocks

    def submit(self, request: Any) -> None:
        pass

    def step(self) -> bool:
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass

    def free_blocks(self) -> int:
        return self.n


@pytest.mark.parametrize("drain", ["step", "run_until_idle"])
def test_driver_stops_an_engine_that_never_goes_idle(pkg: Package, drain: str) -> None:
    test_input = dict(_by_name("the statement's example")["input"], drain=drain)
    output = json.loads(
        json.dumps(pkg.driver.run(types.SimpleNamespace(Engine=_Runaway), test_input))
    )

    ok, message, _ = pkg.checker.check(test_input, None, output)

    assert "still busy" in output["error"] and not ok
    assert message.startswith("first violation at step 0:")


def test_checker_loads_like_the_worker_and_plots_blocks(
    reference: types.ModuleType, pkg: Package
) -> None:
    judge = pytest.importorskip("grading.judge")
    checker = judge.Checker(
        (PACKAGE_DIR / "checker.py").read_text(encoding="utf-8"),
        (PACKAGE_DIR / "support.py").read_text(encoding="utf-8"),
    )
    test = _by_name("preemption under memory pressure")
    output = json.loads(json.dumps(pkg.driver.run(reference, test["input"])))

    ok, message, evidence = checker.check_with_evidence(test["input"], test["expected"], output)

    assert ok, message
    # Blocks in use per step, the engine's next to the prescribed schedule's, and batch sizes.
    assert evidence["occupancy"][:-1] == evidence["baseline_occupancy"]
    assert max(evidence["occupancy"]) == evidence["capacity"] == 6
    assert evidence["batch"] and evidence["oracle_batch"] == evidence["batch"][:-1]


def test_the_worker_reuses_reference_decodes_of_the_same_support_only(
    reference: types.ModuleType, pkg: Package, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each grading gets a fresh Checker, but the reference decodes (deterministic per version)
    are kept in the worker, keyed by support.py's content hash: a second grading of the same
    version decodes nothing again; an edited support.py decodes afresh."""
    judge = pytest.importorskip("grading.judge")
    cache = "_onsite_pkv_reference_cache"
    monkeypatch.delitem(sys.modules, cache, raising=False)
    checker_code = (PACKAGE_DIR / "checker.py").read_text(encoding="utf-8")
    support_code = (PACKAGE_DIR / "support.py").read_text(encoding="utf-8")
    test = _by_name("edge: max_tokens 0 and 1, stop token first")
    assert pkg.support.model_config(test["input"])["tier"] == "torch"
    output = json.loads(json.dumps(pkg.driver.run(reference, test["input"])))

    def grade(support: str) -> dict[Any, Any]:
        ok, message, _ = judge.Checker(checker_code, support).check_with_evidence(
            test["input"], test["expected"], output
        )
        assert ok, message
        return dict(sys.modules[cache].store["continuations"])

    first = grade(support_code)
    assert first  # one decode per request with tokens to check
    again = grade(support_code)
    assert again.keys() == first.keys()
    assert all(again[key] is first[key] for key in first)  # the same decodes, not redone
    edited = grade(support_code + "\n# edited\n")
    assert len(edited) == 2 * len(first)  # new content hash: decoded afresh
    # Loaded any other way (the in-process loader here), nothing is shared.
    pkg.checker.check(test["input"], test["expected"], output)
    assert len(sys.modules[cache].store["continuations"]) == len(edited)


def test_checker_evidence_names_the_first_violating_step(pkg: Package) -> None:
    test = _by_name("preemption under memory pressure")["input"]
    wrong = load_solution(PACKAGE_DIR / "wrong" / "wrong_victim.py")
    output = json.loads(json.dumps(pkg.driver.run(wrong, test)))

    ok, message, evidence = pkg.checker.check(test, None, output)

    assert not ok
    assert message.startswith(f"first violation at step {evidence['first_violation_step']}:")


@pytest.mark.slow
def test_gpu_script_runs_on_the_cpu_with_small_sizes(tmp_path: Path) -> None:
    out = tmp_path / "paged_kv_suite.json"
    done = subprocess.run(
        [
            sys.executable,
            "platform/gpu/paged_kv_suite.py",
            "--device",
            "cpu",
            "--pairs",
            "1",
            "--capacities",
            "4",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["ok"] is True
    assert report["engines"]["reference.py"]["verdict"] == "AC"
    assert report["engines"]["wrong/prefill_over_budget.py"]["groups"]["budget"] == "WA"
    (figure,) = report["throughput"]
    assert figure["capacity"] == 4 and figure["tokens_agree_fraction"] >= 0.9
    assert 0 < figure["kv_peak_bytes"] <= figure["kv_pool_bytes"]
    assert figure["paged_tokens_per_s_median"] > 0 and figure["recompute_tokens_per_s_median"] > 0


# ------------------------------------------------------------------- random workloads and rules

ALTERNATIVES = sorted(f"alternatives/{p.name}" for p in (PACKAGE_DIR / "alternatives").glob("*.py"))
RANDOM_TESTS = [t for t in ALL_TESTS if "random" in t["input"]]


@pytest.mark.parametrize("file", ALTERNATIVES)
def test_correct_engines_written_differently_pass(pkg: Package, file: str) -> None:
    # One picks the victim by submission order and never checks the budget in decode (the
    # statement's freedoms), one by admission stamp with a budget check; both AC everywhere.
    results = grade_all(pkg, load_solution(PACKAGE_DIR / file))

    assert [r.message for r in results if r.verdict != "AC"] == []


@pytest.mark.parametrize("wrong", META["wrong"], ids=lambda w: w["file"])
def test_each_wrong_engine_fails_its_declared_groups_in_process(
    pkg: Package, wrong: dict[str, Any]
) -> None:
    """The sandbox grading (test_bank_grading.py) is the authority; this pins the same targets
    without Docker, on the hidden tests of the declared groups only."""
    solution = load_solution(PACKAGE_DIR / wrong["file"])
    tests = [t for t in pkg.hidden if t["group"] in wrong["groups"]]

    failed = {t["group"]: [] for t in tests}  # type: dict[str, list[str]]
    for test in tests:
        result = grade(pkg, solution, test)
        if result.verdict != "AC":
            failed[test["group"]].append(result.message)
    assert all(failed[g] for g in wrong["groups"]), failed
    assert any(wrong["says"] in m for ms in failed.values() for m in ms), failed


def test_random_workloads_are_reproducible_and_reach_the_missed_clauses(pkg: Package) -> None:
    support = pkg.support
    workloads = [w for t in RANDOM_TESTS for w in support.expand_workloads(t["input"])]
    again = [w for t in RANDOM_TESTS for w in support.expand_workloads(t["input"])]
    assert workloads == again  # the seed in hidden.json is the whole test

    requests = [r for w in workloads for r in w["requests"]]
    vocabs = {support.model_config(t["input"])["vocab"] for t in RANDOM_TESTS}
    assert any(r.get("stop_token") == 0 for r in requests)
    assert any(v - 1 in r["prompt"] for r in requests for v in vocabs)
    assert any(r.get("after") for r in requests)  # submitted from a callback
    assert any(r["arrival"] > 0 for r in requests)
    assert {w["drain"] for w in workloads} == {"step", "run_until_idle"}
    assert min(w["token_budget"] for w in workloads) == 1
    assert min(w["num_blocks"] for w in workloads) == 1
    # Stop sequences that a matcher restarting on a mismatch, or one reading the prompt, gets
    # wrong on the request's own continuation (the sim model's greedy tokens).
    traps = 0
    for test in RANDOM_TESTS:
        model = support.build_model(support.model_config(test["input"]), support.Limits(1, 1, 1))
        for workload in support.expand_workloads(test["input"]):
            for r in workload["requests"]:
                if not r.get("stop_sequence"):
                    continue
                stop, whole = r["stop_sequence"], list(r["prompt"])
                for _ in range(r["max_tokens"]):
                    whole.append(model.next_with_margin(whole)[0])
                gen = whole[len(r["prompt"]) :]
                right = support.finish_length(gen, len(gen), None, stop)
                restarting = support._restarting_match_end(gen, stop)
                with_prompt = support.finish_length(whole, len(whole), None, stop)
                traps += restarting != right or with_prompt not in (
                    None,
                    len(r["prompt"]) + (right or 0),
                )
    assert traps >= 10


def _reference_steps(pkg: Package, workload: dict[str, Any]) -> list[tuple[int, list[int]]]:
    """(decode-ready sequences, submission numbers of the running ones) before every step."""
    support = pkg.support
    ref = load_solution(PACKAGE_DIR / "reference.py")
    seen: list[tuple[int, list[int]]] = []
    order: dict[str, int] = {}

    class Watched(ref.Engine):  # type: ignore[name-defined]
        def submit(self, request: Any) -> None:
            order[request.request_id] = len(order)
            super().submit(request)

        def step(self) -> bool:
            ready = sum(not s.prefilling() for s in self._running)
            seen.append((ready, [order[s.request.request_id] for s in self._running]))
            return bool(super().step())

    limits = support.limits_of(workload)
    model = support.build_model(support.model_config(workload), limits)
    pkg.driver.drive(Watched, model, support.parse_requests(workload), limits, workload["drain"])
    return seen


def test_the_two_clauses_no_input_can_break_are_facts_on_every_random_workload(
    pkg: Package,
) -> None:
    """Why the statement lists them as freedoms: the decode budget never binds (each sequence
    that can decode spent a token of the previous step), and the running sequences are always
    in submission order (so the newest admitted is the latest submitted)."""
    for test in RANDOM_TESTS:
        for workload in pkg.support.expand_workloads(test["input"]):
            for ready, running in _reference_steps(pkg, workload):
                assert ready <= workload["token_budget"]
                assert running == sorted(running)


def test_oracle_admits_a_request_a_callback_submitted_in_the_same_step(pkg: Package) -> None:
    # a ends at step 1 (its decode); its callback submits c, which step 1's admission admits
    # right away, after b (already waiting) - and z, with max_tokens 0, ends at admission and
    # its callback's request y is admitted in that same admission.
    test_input = {
        "num_blocks": 4,
        "block_size": 2,
        "token_budget": 8,
        "requests": [
            {"id": "a", "prompt": [1, 2], "max_tokens": 2},
            {"id": "b", "prompt": [3, 4, 5, 6, 7], "max_tokens": 1, "arrival": 1},
            {"id": "c", "prompt": [8], "max_tokens": 1, "after": "a"},
            {"id": "z", "prompt": [9], "max_tokens": 0, "arrival": 3},
            {"id": "y", "prompt": [2], "max_tokens": 1, "after": "z"},
        ],
    }

    assert _schedule_rows(pkg, test_input) == [
        ([], [("a", 0, 2)], [], [], 1),
        (["a"], [("b", 0, 5), ("c", 0, 1)], [], ["a", "b", "c"], 0),
        ([], [], [], [], 0),
        ([], [("y", 0, 1)], [], ["z", "y"], 0),
    ]
    reference = load_solution(PACKAGE_DIR / "reference.py")
    output = json.loads(json.dumps(pkg.driver.run(reference, test_input)))
    assert pkg.checker.check(test_input, None, output)[0]


def test_rules_are_judged_separately_and_name_the_groups_property(pkg: Package) -> None:
    test = _by_name("the statement's example")
    support, checker = pkg.support, pkg.checker

    def rules(file: str) -> tuple[bool, dict[str, Any]]:
        output = json.loads(
            json.dumps(pkg.driver.run(load_solution(PACKAGE_DIR / file), test["input"]))
        )
        ok, _message, evidence = checker.check(test["input"], None, output)
        assert set(evidence["rules"]) == set(checker.RULES)
        assert evidence["property"] == "tokens"  # the correctness group is about tokens
        return ok, {k: v for k, v in evidence["rules"].items() if v is not None}

    assert rules("reference.py") == (True, {})
    # A convention slip breaks only its own rule: the tokens, callbacks, blocks and the schedule
    # all still hold, so the group's property holds while the test fails.
    ok, broken = rules("wrong/step_returns_remaining.py")
    assert not ok and set(broken) == {"step results"}
    assert "step() returned False" in broken["step results"]
    ok, broken = rules("wrong/wrong_victim.py")
    assert not ok and {"schedule", "preemption"} <= set(broken) and "tokens" not in broken
    assert all(v in checker.RULES for v in checker.PROPERTY.values())
    assert support.PACKAGE == "paged-kv-engine"


def test_a_random_test_names_its_failing_workload(pkg: Package) -> None:
    test = next(t for t in RANDOM_TESTS if t["group"] == "random stops")
    output = json.loads(
        json.dumps(
            pkg.driver.run(load_solution(PACKAGE_DIR / "wrong/stop_token_zero.py"), test["input"])
        )
    )

    ok, message, evidence = pkg.checker.check(test["input"], None, output)

    assert not ok
    assert message.startswith("first violation at step ")
    assert f"of workload {evidence['workload']} of 30 (" in message
    assert evidence["rules"]["tokens"] and evidence["property"] == "tokens"


def test_random_workloads_reach_the_preemption_paths(pkg: Package) -> None:
    """Issue 24's 'every preemption path' in the seeded stress tests: the reference, run on
    their workloads, preempts sequences that had generated tokens (with part of a stop
    sequence matched), sequences in the middle of their prefill, and the same sequence more
    than once."""
    support = pkg.support
    ref = load_solution(PACKAGE_DIR / "reference.py")
    seen: dict[str, int] = dict.fromkeys(("generated", "stop progress", "mid-prefill", "again"), 0)
    times: dict[tuple[int, str], int] = {}  # (workload, request) -> preemptions
    workload_number = [0]

    class Watched(ref.Engine):  # type: ignore[name-defined]
        def _plan_decode(self, budget: int) -> tuple[list[Any], bool]:
            running = list(self._running)
            batch, preempted = super()._plan_decode(budget)
            for seq in (s for s in running if s not in self._running):
                key = (workload_number[0], seq.request.request_id)
                times[key] = times.get(key, 0) + 1
                stop = list(seq.request.stop_sequence or ())
                seen["again"] += times[key] == 2
                seen["generated"] += bool(seq.generated)
                seen["stop progress"] += bool(seq.generated) and any(
                    seq.generated[-k:] == stop[:k] for k in range(1, len(stop))
                )
            return batch, preempted

        def _release(self, seq: Any) -> None:
            seen["mid-prefill"] += seq.prefilling() and seq.cached > 0
            super()._release(seq)

    for test in RANDOM_TESTS:
        for workload in support.expand_workloads(test["input"]):
            workload_number[0] += 1
            limits = support.limits_of(workload)
            model = support.build_model(support.model_config(workload), limits)
            pkg.driver.drive(
                Watched, model, support.parse_requests(workload), limits, workload["drain"]
            )
    assert all(seen.values()), seen
