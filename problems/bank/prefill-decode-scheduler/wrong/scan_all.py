"""Wrong (TLE): one list of every request ever added, with a state field, rescanned each step.

The state machine is right, but each step walks the whole history (finished requests included),
so a long trace costs O(steps * requests) instead of O(work done).
"""

from __future__ import annotations

from typing import Any


class Scheduler:
    def __init__(self, token_budget: int, max_running: int) -> None:
        self.budget = token_budget
        self.max_running = max_running
        self.requests: list[dict[str, Any]] = []
        self.t = 0

    def add(self, request_id: str, prompt_len: int, max_new_tokens: int) -> bool:
        if prompt_len > self.budget:
            return False
        self.requests.append({"id": request_id, "prompt": prompt_len, "max_new": max_new_tokens,
                              "state": "waiting", "gen": 0})
        return True

    def step(self) -> dict[str, Any]:
        used = 0
        decode: list[str] = []
        finished: list[str] = []
        running = 0
        for r in self.requests:
            if r["state"] == "decode":
                running += 1
                used += 1
                r["gen"] += 1
                decode.append(r["id"])
        prefill: list[str] = []
        for r in self.requests:
            if r["state"] != "waiting":
                continue
            if running >= self.max_running or used + r["prompt"] > self.budget:
                break
            r["state"] = "prefill"
            used += r["prompt"]
            running += 1
            prefill.append(r["id"])
        for r in self.requests:
            if r["state"] == "decode" and r["gen"] >= r["max_new"]:
                r["state"] = "finished"
                finished.append(r["id"])
        for r in self.requests:
            if r["state"] == "prefill":
                if r["max_new"] == 0:
                    r["state"] = "finished"
                    finished.append(r["id"])
                else:
                    r["state"] = "decode"
        rec = {"step": self.t, "decode": decode, "prefill": prefill, "finished": finished,
               "tokens_used": used}
        self.t += 1
        return rec

    def run_until_done(self) -> list[dict[str, Any]]:
        out = []
        while any(r["state"] in ("waiting", "decode") for r in self.requests):
            out.append(self.step())
        return out
