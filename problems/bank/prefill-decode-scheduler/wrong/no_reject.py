"""Wrong (WA): accepts every request, so a prompt longer than the budget sits at the
head of the queue forever and run_until_done() never returns (the grader stops it once steps
stop doing work).
"""

from __future__ import annotations

from collections import deque
from typing import Any


class _Request:
    """One accepted request and how many tokens it has generated so far."""

    __slots__ = ("rid", "prompt_len", "max_new_tokens", "generated")

    def __init__(self, rid: str, prompt_len: int, max_new_tokens: int) -> None:
        self.rid = rid
        self.prompt_len = prompt_len
        self.max_new_tokens = max_new_tokens
        self.generated = 0


class Scheduler:
    """Step scheduler with a per-step token budget and a cap on running requests."""

    def __init__(self, token_budget: int, max_running: int) -> None:
        self._budget = token_budget
        self._max_running = max_running
        self._waiting: deque[_Request] = deque()
        # Requests in Decode, in admission order (oldest first): the decode order of a step.
        self._decoding: list[_Request] = []
        self._step = 0

    def add(self, request_id: str, prompt_len: int, max_new_tokens: int) -> bool:
        """Queue a request; return False (and never schedule it) if its prompt can never fit."""
        self._waiting.append(_Request(request_id, prompt_len, max_new_tokens))
        return True

    def step(self) -> dict[str, Any]:
        """Run one step and return its record."""
        used = 0
        decode_ids: list[str] = []
        finished: list[str] = []
        still_decoding: list[_Request] = []
        # 1. Decodes first. Their count never exceeds the budget: a step admits at most
        #    (budget - decodes) prompts of length >= 1, so the next step's decodes still fit.
        for req in self._decoding:
            used += 1
            req.generated += 1
            decode_ids.append(req.rid)
            if req.generated >= req.max_new_tokens:
                finished.append(req.rid)
            else:
                still_decoding.append(req)
        # 2. Admission. A request finishing in this very step still holds its slot until the
        #    step ends, so the slot count uses the decode list before removal.
        running = len(self._decoding)
        prefill_ids: list[str] = []
        admitted: list[_Request] = []
        while self._waiting:
            head = self._waiting[0]
            if running >= self._max_running or used + head.prompt_len > self._budget:
                break  # check BEFORE admitting; a blocked head blocks everyone behind it
            self._waiting.popleft()
            used += head.prompt_len
            running += 1
            prefill_ids.append(head.rid)
            admitted.append(head)
        # 3. End of step: prefills with nothing to generate finish now, the rest start decoding
        #    next step; finished requests are gone from every queue before the next step.
        for req in admitted:
            if req.max_new_tokens == 0:
                finished.append(req.rid)
            else:
                still_decoding.append(req)
        self._decoding = still_decoding
        record = {
            "step": self._step,
            "decode": decode_ids,
            "prefill": prefill_ids,
            "finished": finished,
            "tokens_used": used,
        }
        self._step += 1
        return record

    def has_pending(self) -> bool:
        """True while some accepted request is waiting or running."""
        return bool(self._waiting or self._decoding)

    def run_until_done(self) -> list[dict[str, Any]]:
        """Step until nothing is waiting or running; return the records of those steps."""
        records: list[dict[str, Any]] = []
        while self.has_pending():
            records.append(self.step())
        return records
