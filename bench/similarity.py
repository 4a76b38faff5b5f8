"""`python -m bench similarity`: precision and recall of copied-code detection on a labelled set.

The set is bench/similarity_data/ (see its README): per problem, independent solutions and
copies of two of them disguised by renaming, reformatting, reordering, dead code, rewritten
loops, all of these at once, and partial copies. A copy against its source is a positive
pair; every pair from two different families is a negative one (an independent solution
against another, or against someone else's copy), scored both ways and judged by the higher.

Two detectors side by side, in one run, each at its own default threshold:

* plain: copydetect's `CodeFingerprint` and `compare_files` with its default settings
  (noise and guarantee thresholds 25, pygments' filter) and its display threshold 0.33;
* normalised: `grading.similarity` (tokenize, names to placeholders except those the problem
  forces, the starter's and the reference's k-grams taken out) at `DEFAULT_THRESHOLD`.

The split `labelled` is what the defaults were chosen on; `heldout` (another problem) is tried
the same way every run and never tuned on. Writes bench/results/similarity.json.
"""

from __future__ import annotations

import io
import itertools
import json
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from copydetect import defaults as copydetect_defaults
from copydetect.detector import CodeFingerprint, compare_files

from grading import similarity

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "similarity_data"
BANK = ROOT / "problems" / "bank"
RESULTS = Path(__file__).parent / "results"
SPLITS = ("labelled", "heldout")


@dataclass(frozen=True)
class Doc:
    name: str
    family: str
    category: str  # "independent", or the disguise of a copy
    source: str


@dataclass(frozen=True)
class Pair:
    problem: str
    a: str  # the later submission: the copy, when it is one
    b: str
    copied: bool
    category: str
    score: float


@dataclass(frozen=True)
class Figures:
    precision: float
    recall: float
    true_positive: int
    false_positive: int
    false_negative: int
    negatives: int
    positives: int


Scorer = Callable[[Doc, Doc], float]


def load(split: str) -> dict[str, list[Doc]]:
    """Every problem of the split and its documents."""
    problems: dict[str, list[Doc]] = {}
    for folder in sorted((DATA / split).iterdir()):
        docs = [
            Doc(p.stem, p.stem, "independent", p.read_text())
            for p in sorted((folder / "independent").glob("*.py"))
        ]
        for p in sorted((folder / "copies").glob("*.py")):
            family, category = p.stem.split("__")
            docs.append(Doc(p.stem, family, category, p.read_text()))
        problems[folder.name] = docs
    return problems


def pairs(problem: str, docs: list[Doc], score: Scorer) -> list[Pair]:
    by_name = {d.name: d for d in docs}
    out: list[Pair] = []
    for doc in docs:
        if doc.category != "independent":
            source = by_name[doc.family]
            out.append(Pair(problem, doc.name, source.name, True, doc.category, score(doc, source)))
    for x, y in itertools.combinations(docs, 2):
        if x.family != y.family:
            worst = max(score(x, y), score(y, x))
            out.append(Pair(problem, x.name, y.name, False, "different", worst))
    return out


def figures(found: list[Pair], threshold: float) -> Figures:
    tp = sum(p.copied and p.score >= threshold for p in found)
    fp = sum(not p.copied and p.score >= threshold for p in found)
    fn = sum(p.copied and p.score < threshold for p in found)
    positives = sum(p.copied for p in found)
    return Figures(
        precision=tp / (tp + fp) if tp + fp else 1.0,
        recall=tp / positives if positives else 1.0,
        true_positive=tp,
        false_positive=fp,
        false_negative=fn,
        negatives=len(found) - positives,
        positives=positives,
    )


def plain_scorer(problem: str, docs: list[Doc]) -> Scorer:
    """copydetect as shipped: default k and window, its own filter, no boilerplate."""
    prints = {
        d.name: CodeFingerprint(
            f"{d.name}.py",
            copydetect_defaults.NOISE_THRESHOLD,
            copydetect_defaults.GUARANTEE_THRESHOLD - copydetect_defaults.NOISE_THRESHOLD + 1,
            fp=io.StringIO(d.source),
        )
        for d in docs
    }

    def score(a: Doc, b: Doc) -> float:
        _, (share_a, _), _ = compare_files(prints[a.name], prints[b.name])
        return float(share_a)

    return score


def normalised_scorer(problem: str, docs: list[Doc]) -> Scorer:
    """grading.similarity: the problem's starter and reference taken out, its names kept."""
    starter = (BANK / problem / "starter.py").read_text()
    reference = (BANK / problem / "reference.py").read_text()
    keep = similarity.forced_names(starter)
    ignore = similarity.boilerplate(starter, reference, keep=keep)
    prints = {d.name: similarity.fingerprint(d.source, keep=keep, ignore=ignore) for d in docs}

    def score(a: Doc, b: Doc) -> float:
        return similarity.share(prints[a.name], prints[b.name].hashes)

    return score


DETECTORS: dict[str, tuple[Callable[[str, list[Doc]], Scorer], float]] = {
    "plain": (plain_scorer, copydetect_defaults.DISPLAY_THRESHOLD),
    "normalised": (normalised_scorer, similarity.DEFAULT_THRESHOLD),
}


def evaluate(split: str, detector: str) -> tuple[Figures, list[Pair]]:
    make, threshold = DETECTORS[detector]
    found: list[Pair] = []
    for problem, docs in load(split).items():
        found.extend(pairs(problem, docs, make(problem, docs)))
    return figures(found, threshold), found


def main(argv: list[str]) -> int:
    report: dict[str, object] = {}
    for split in SPLITS:
        for detector, (_, threshold) in DETECTORS.items():
            result, found = evaluate(split, detector)
            report[f"{split}/{detector}"] = {
                "threshold": threshold,
                **asdict(result),
                "misses": [asdict(p) for p in found if p.copied and p.score < threshold],
                "false_flags": [asdict(p) for p in found if not p.copied and p.score >= threshold],
                "pairs": [asdict(p) for p in found],
            }
            print(
                f"{split:9} {detector:10} threshold {threshold:.2f}: precision "
                f"{result.precision:.3f} recall {result.recall:.3f} "
                f"({result.positives} copies, {result.negatives} independent pairs; "
                f"{result.false_positive} false flags, {result.false_negative} missed)"
            )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "similarity.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
