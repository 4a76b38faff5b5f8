"""The solo interviewer's matcher on its evaluation set (issue 36): answers only what it was asked.

Asks every question of interviews/clarify_eval.toml against its bank problem (clarifications,
and a design statement's figures) with the real offline model, and prints per problem and per
half of the set (tune: even positions, check: odd): paraphrases answered with their own answer
(recall), near misses declined, and false answers (any other answer), each false answer in
full. Targets: 0 false answers, recall at least 85 %. Raw rows in bench/results/matching.json.

    python -m bench matching
"""

from __future__ import annotations

import json
import os
import sys

from bench.stability import RESULTS


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings

    from interviews import matching_eval

    if settings.ONSITE_CLARIFY_EMBEDDER:  # the real model, as a deployment runs it
        print(f"note: ONSITE_CLARIFY_EMBEDDER={settings.ONSITE_CLARIFY_EMBEDDER}", file=sys.stderr)
    raw: dict[str, dict[str, dict[str, object]]] = {}
    totals = {}
    for half, name in enumerate(matching_eval.HALVES):
        total = matching_eval.Tally()
        for slug, tally in matching_eval.evaluate(half).items():
            total.add(tally)
            print(f"{name:5} {slug:28} paraphrases {tally.answered}/{tally.asked} "
                  f"near misses declined {tally.near_misses_declined}/{tally.near_misses} "
                  f"false {len(tally.false)}")
            for false in tally.false:
                print(f"      FALSE {false}")
            raw.setdefault(slug, {})[name] = {
                "asked": tally.asked, "answered": tally.answered,
                "near_misses": tally.near_misses, "declined": tally.near_misses_declined,
                "false": tally.false,
            }
        totals[name] = total
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "matching.json").write_text(json.dumps(raw, indent=1), encoding="utf-8")
    for name, total in totals.items():
        print(f"{name} half: recall {total.answered}/{total.asked} = {total.recall:.0%}, "
              f"near misses declined {total.near_misses_declined}/{total.near_misses}, "
              f"false answers {len(total.false)}")
    every = matching_eval.Tally()
    for total in totals.values():
        every.add(total)
    print(f"matching: false answers {len(every.false)} (target 0), recall {every.recall:.0%} "
          f"(target {matching_eval.RECALL_TARGET:.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
