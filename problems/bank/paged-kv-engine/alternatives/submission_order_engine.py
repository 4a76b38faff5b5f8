"""Correct alternative, written unlike the reference and using the statement's freedoms.

* The preemption victim is the running sequence with the highest submission number, not the
  last one admitted: running + waiting always stay in submission order, so they are the same.
* Decode never looks at the token budget: every sequence that can decode spent a token of the
  previous step, so there are never more than token_budget of them.
* Stop sequences are matched incrementally with a KMP automaton whose state survives a
  preemption (the recompute feeds no token to it: only newly generated tokens advance it).
* Free blocks are a FIFO (popleft / append): any ids in any order will do.
"""

from __future__ import annotations

from collections import deque
from itertools import count
from typing import Any


def _prefix_function(pattern: list[int]) -> list[int]:
    """fail[i] = length of the longest proper prefix of pattern[:i + 1] that is also a suffix."""
    fail = [0] * len(pattern)
    k = 0
    for i in range(1, len(pattern)):
        while k and pattern[i] != pattern[k]:
            k = fail[k - 1]
        if pattern[i] == pattern[k]:
            k += 1
        fail[i] = k
    return fail


class _Sequence:
    def __init__(self, request: Any, number: int) -> None:
        self.request = request
        self.number = number  # submission order
        self.out: list[int] = []
        self.blocks: list[int] = []
        self.done = 0  # positions whose KV is cached
        self.goal = 0  # positions the current prefill caches
        self.stop = list(request.stop_sequence or [])
        self.fail = _prefix_function(self.stop)
        self.matched = 0  # KMP state over the generated tokens

    def tokens(self) -> list[int]:
        return list(self.request.prompt) + self.out

    def push(self, token: int) -> bool:
        """Append a generated token; True when the request ends with it."""
        self.out.append(token)
        if self.stop:
            while self.matched and token != self.stop[self.matched]:
                self.matched = self.fail[self.matched - 1]
            if token == self.stop[self.matched]:
                self.matched += 1
        stop_token = self.request.stop_token
        return (len(self.out) >= self.request.max_tokens
                or (stop_token is not None and token == stop_token)
                or (bool(self.stop) and self.matched == len(self.stop)))


class Engine:
    def __init__(self, model: Any, num_blocks: int, block_size: int, token_budget: int) -> None:
        self.model = model
        self.size = block_size
        self.budget = token_budget
        self.free: deque[int] = deque(range(num_blocks))
        self.running: list[_Sequence] = []  # admission order
        self.queue: deque[_Sequence] = deque()
        self.numbers = count()

    def submit(self, request: Any) -> None:
        self.queue.append(_Sequence(request, next(self.numbers)))

    def free_blocks(self) -> int:
        return len(self.free)

    def run_until_idle(self) -> None:
        while self.step():
            pass

    def step(self) -> bool:
        if not self.running and not self.queue:
            return False
        spent, preempted = self._decode()
        left = self._continue_prefills(self.budget - spent)
        if not preempted:
            self._admit(left)
        return True

    # -- phases

    def _decode(self) -> tuple[int, bool]:
        batch: list[_Sequence] = []
        preempted = False
        for seq in list(self.running):
            if seq not in self.running or seq.done < seq.goal:
                continue
            while len(seq.blocks) * self.size <= seq.done and not self.free:
                victim = max(self.running, key=lambda s: s.number)
                self._preempt(victim)
                preempted = True
                if victim is seq:
                    break
            if seq not in self.running:
                continue
            if len(seq.blocks) * self.size <= seq.done:
                seq.blocks.append(self.free.popleft())
            batch.append(seq)
        if batch:
            rows = [(s.request.request_id, s.tokens()[-1], s.done, list(s.blocks)) for s in batch]
            for seq, token in zip(batch, self.model.decode(rows), strict=True):
                seq.done += 1
                self._emit(seq, int(token))
        return len(batch), preempted

    def _continue_prefills(self, left: int) -> int:
        for seq in [s for s in self.running if s.done < s.goal]:
            if left <= 0:
                break
            left -= self._chunk(seq, left)
        return left

    def _admit(self, left: int) -> None:
        while left > 0 and self.queue:
            head = self.queue[0]
            if head.request.max_tokens <= 0:
                self.queue.popleft()
                head.request.callback(head.request.request_id, [])
                continue
            length = len(head.request.prompt) + len(head.out)
            need = -(-length // self.size)
            if need > len(self.free):
                return
            self.queue.popleft()
            head.blocks = [self.free.popleft() for _ in range(need)]
            head.done, head.goal = 0, length
            self.running.append(head)
            left -= self._chunk(head, left)

    # -- helpers

    def _chunk(self, seq: _Sequence, left: int) -> int:
        piece = seq.tokens()[seq.done:seq.goal][:left]
        token = self.model.prefill(seq.request.request_id, piece, list(seq.blocks), seq.done)
        seq.done += len(piece)
        if seq.done == seq.goal:
            self._emit(seq, int(token))
        return len(piece)

    def _emit(self, seq: _Sequence, token: int) -> None:
        if seq.push(token):
            self._drop(seq)
            seq.request.callback(seq.request.request_id, list(seq.out))

    def _preempt(self, seq: _Sequence) -> None:
        self._drop(seq)
        seq.done = seq.goal = 0
        self.queue.appendleft(seq)

    def _drop(self, seq: _Sequence) -> None:
        self.running.remove(seq)
        self.free.extend(seq.blocks)
        seq.blocks = []
