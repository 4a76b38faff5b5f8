"""`python -m bench similarity_scale [--stored N] [--new M]`: copied-code comparison at scale.

N submissions of one problem (lru-cache; 10,000 by default) are fingerprinted and stored in a
fresh SQLite database (migrated here, under a temporary folder), their fingerprints in the
inverted index as the background job stores them. Then M new Submits are computed one at a
time by the job's own service (`grading.copies.codeprint_compute`), interleaved with the
baseline of the same job done the simplest way: the new print scored against every stored
print (all pairs). Reports the time per new submission (median and p95, and the ratio to the
baseline in the same run), the Python memory a computation allocates at its peak
(tracemalloc), and the storage per submission (SQLite's own page accounting, `dbstat`).

The stored submissions are the labelled set's lru-cache solutions and copies, each with a
random mix of the disguises and live statements of its own, so most of their fingerprints are
their own while the shared idioms give long posting lists. Every other new Submit is a
disguised copy (all the disguises at once) of a stored one, the others fresh programs.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from bench import similarity as labelled
from bench.similarity_disguise import DISGUISES, disguise

SLUG = "lru-cache"


def _variants(count: int, seed: int = 41) -> list[str]:
    """`count` programs: a labelled-set solution of the problem, a random mix of disguises, and
    a live statement of its own (`print` of two random numbers) after every other statement,
    so that most of each program's fingerprints are its own, as independent work's are."""
    rng = random.Random(seed)
    bank = labelled.BANK / SLUG
    starter = (bank / "starter.py").read_text()
    docs = [d.source for d in labelled.load("labelled")[SLUG]]
    hows = [h for h in DISGUISES if h != "all"]
    out = []
    for _ in range(count):
        source = rng.choice(docs)
        for how in rng.sample(hows, rng.randint(0, 2)):
            source = disguise(source, starter, how)
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                body: list[ast.stmt] = []
                for i, stmt in enumerate(node.body):
                    if i % 2 == 1:
                        mark = f"print({rng.randint(0, 10**9)}, {rng.randint(0, 10**9)}, end='')"
                        body.extend(ast.parse(mark).body)
                    body.append(stmt)
                node.body = body
        out.append(ast.unparse(ast.fix_missing_locations(tree)) + "\n")
    return out


def _copies(sources: list[str], count: int, seed: int = 42) -> list[str]:
    """`count` new Submits, every other one a disguised copy of a stored program."""
    rng = random.Random(seed)
    starter = (labelled.BANK / SLUG / "starter.py").read_text()
    fresh = _variants(count, seed=seed)
    return [
        disguise(rng.choice(sources), starter, "all") if i % 2 == 0 else fresh[i]
        for i in range(count)
    ]


def _setup_django(folder: Path) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'scale.sqlite3'}"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench similarity_scale")
    parser.add_argument("--stored", type=int, default=10_000)
    parser.add_argument("--new", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="onsite-similarity-") as tmp:
        _setup_django(Path(tmp))
        return _run(stored=args.stored, new=args.new)


def _run(*, stored: int, new: int) -> int:
    from django.contrib.auth.models import User
    from django.db import connection

    from grading import copies, similarity
    from grading.models import CodePrint, CodePrintHash, Submission
    from problems.models import Problem, ProblemVersion

    bank = labelled.BANK / SLUG
    problem = Problem.objects.create(
        slug=SLUG,
        title="LRU",
        starter_code=(bank / "starter.py").read_text(),
        reference_code=(bank / "reference.py").read_text(),
        published=True,
    )
    version = ProblemVersion.objects.create(
        problem=problem,
        number=1,
        tests_hash="bench",
        driver={"kind": "custom"},
        compare={"mode": "exact"},
        limits={},
        starter_code=problem.starter_code,
        reference_code=problem.reference_code,
    )
    sources = _variants(stored)
    sources += _copies(sources, new)
    users = User.objects.bulk_create(
        [User(username=f"bench{i}") for i in range(stored + new)], batch_size=2000
    )
    began = time.monotonic()
    shape = copies.shape_of(Submission(version=version))
    prints: list[tuple[Submission, frozenset[int]]] = []
    for user, code in zip(users[:stored], sources[:stored], strict=True):
        fp = similarity.fingerprint(code, keep=shape.keep, ignore=shape.ignore)
        prints.append((Submission(user=user, problem=problem, version=version, mode="submit",
                                  code=code, lane="submit"), fp.hashes))  # fmt: skip
    fingerprint_s = time.monotonic() - began
    submissions = Submission.objects.bulk_create([s for s, _ in prints], batch_size=1000)
    rows = CodePrint.objects.bulk_create(
        [
            CodePrint(
                submission=s, problem=problem, status=CodePrint.Status.DONE, hashes=copies.pack(h)
            )
            for s, (_, h) in zip(submissions, prints, strict=True)
        ],
        batch_size=1000,
    )
    CodePrintHash.objects.bulk_create(
        (
            CodePrintHash(problem=problem, value=v, codeprint=row)
            for row, (_, h) in zip(rows, prints, strict=True)
            for v in h
        ),
        batch_size=5000,
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    storage = _storage_bytes(connection)

    def all_pairs(codeprint_id: int) -> float:
        """The baseline: the same job scoring the new print against every stored one."""
        cp = CodePrint.objects.select_related("submission__version").get(pk=codeprint_id)
        own = copies.fingerprint_of(cp.submission)
        best = 0.0
        others = CodePrint.objects.filter(problem=problem, status="done").exclude(
            submission__user_id=cp.submission.user_id
        )
        for blob in others.values_list("hashes", flat=True):
            best = max(best, similarity.share(own, copies.unpack(blob)))
        return best

    incremental: list[float] = []
    baseline: list[float] = []
    peaks: list[int] = []
    scores: list[tuple[float, float]] = []
    threshold = copies.threshold()
    for n, (user, code) in enumerate(zip(users[stored:], sources[stored:], strict=True)):
        submission = Submission.objects.create(
            user=user, problem=problem, version=version, mode="submit", code=code, lane="submit"
        )
        cp = CodePrint.objects.create(submission=submission, problem=problem)
        measure_memory = n % 4 == 3  # tracemalloc slows Python: those runs are not timed
        if measure_memory:
            tracemalloc.start()
        t0 = time.perf_counter()
        copies.codeprint_compute(codeprint_id=cp.pk)
        spent = time.perf_counter() - t0
        if measure_memory:
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
        t0 = time.perf_counter()
        best = all_pairs(cp.pk)
        if not measure_memory:
            incremental.append(spent)
            baseline.append(time.perf_counter() - t0)
        cp.refresh_from_db()
        scores.append((cp.match_score, best))
    agree = sum((a >= threshold) == (b >= threshold) for a, b in scores)
    planted = scores[0::2]  # every other new Submit is a disguised copy of a stored one
    ratios = [b / a for a, b in zip(incremental, baseline, strict=True)]
    hashes = CodePrintHash.objects.filter(codeprint__submission__in=submissions).count()
    report = {
        "stored": stored,
        "new": new,
        "fingerprint_ms_per_stored": 1000 * fingerprint_s / stored,
        "index_rows": hashes,
        "hashes_per_submission": hashes / stored,
        "storage_bytes": storage,
        "storage_bytes_per_submission": {k: v / stored for k, v in storage.items()},
        "incremental_s": incremental,
        "all_pairs_s": baseline,
        "peak_alloc_bytes": peaks,
        "scores_incremental_vs_all_pairs": scores,
        "same_flag_as_all_pairs": agree,
        "planted_copies_flagged": sum(a >= threshold for a, _ in planted),
        "planted_copies_flagged_all_pairs": sum(b >= threshold for _, b in planted),
    }
    labelled.RESULTS.mkdir(exist_ok=True)
    (labelled.RESULTS / "similarity_scale.json").write_text(json.dumps(report, indent=1))
    p95 = sorted(incremental)[max(0, round(0.95 * len(incremental)) - 1)]
    per = {k: round(v / stored) for k, v in storage.items()}
    print(f"stored {stored} submissions of {SLUG}: {hashes / stored:.0f} fingerprints each, "
          f"fingerprinting {1000 * fingerprint_s / stored:.1f} ms each")  # fmt: skip
    print(f"storage per submission (bytes, SQLite dbstat): {per}")
    print(f"new submission, incremental: median {1000 * statistics.median(incremental):.1f} ms, "
          f"p95 {1000 * p95:.1f} ms; all pairs {1000 * statistics.median(baseline):.1f} ms; "
          f"peak Python allocation {max(peaks) / 2**20:.1f} MiB")  # fmt: skip
    print(f"planted copies flagged: {sum(a >= threshold for a, _ in planted)}/{len(planted)} "
          f"(all pairs {sum(b >= threshold for _, b in planted)}/{len(planted)})")  # fmt: skip
    print(f"same flag as all pairs at {threshold}: {agree}/{new}; same best score: "
          f"{sum(abs(a - b) < 1e-9 for a, b in scores)}/{new}")  # fmt: skip
    low, high = min(ratios), max(ratios)
    print(f"all pairs / incremental, median of {len(ratios)} interleaved: "
          f"{statistics.median(ratios):.1f}x (min {low:.1f}, max {high:.1f})")  # fmt: skip
    return 0


def _storage_bytes(connection: object) -> dict[str, int]:
    """Bytes SQLite holds for each copied-code table and index (its `dbstat` page accounting)."""
    from django.db import connection as conn

    names = {
        "grading_codeprint": "prints (hashes blob, match)",
        "grading_codeprinthash": "index rows",
        "codeprint_hash_lookup": "index (problem, hash)",
    }
    out: dict[str, int] = {}
    with conn.cursor() as cursor:
        for table, label in names.items():
            try:
                cursor.execute("SELECT SUM(pgsize) FROM dbstat WHERE name = %s", [table])
                out[label] = int(cursor.fetchone()[0] or 0)
            except Exception:  # dbstat not compiled in: page count of the whole file instead
                cursor.execute("PRAGMA page_count")
                pages = cursor.fetchone()[0]
                cursor.execute("PRAGMA page_size")
                return {"whole database": pages * cursor.fetchone()[0]}
        # the CodePrint foreign-key indexes SQLite keeps too
        cursor.execute(
            "SELECT name FROM sqlite_master WHERE type='index' AND tbl_name IN "
            "('grading_codeprint', 'grading_codeprinthash') AND name != 'codeprint_hash_lookup'"
        )
        extra = [row[0] for row in cursor.fetchall()]
        total = 0
        for name in extra:
            cursor.execute("SELECT SUM(pgsize) FROM dbstat WHERE name = %s", [name])
            total += int(cursor.fetchone()[0] or 0)
        out["other indexes"] = total
    return out


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
