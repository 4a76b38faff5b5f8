"""Known-wrong: matches the stop sequence as a stream, one token at a time, and restarts from
scratch on a mismatch instead of falling back to the longest prefix that still matches (KMP):
"a a b" is missed after "a a a b"."""

from __future__ import annotations

from collections import deque
from typing import Any


class _Seq:
    """One request inside the engine: its tokens, its blocks and how much KV they hold."""

    __slots__ = ("cached", "generated", "matched", "request", "table", "target")

    def __init__(self, request: Any) -> None:
        self.request = request
        self.generated: list[int] = []
        self.table: list[int] = []
        self.cached = 0  # positions whose KV is in `table`
        self.target = 0  # positions the current prefill must cache
        self.matched = 0  # stop-sequence tokens matched so far

    def tokens(self) -> list[int]:
        return list(self.request.prompt) + self.generated

    def prefilling(self) -> bool:
        return self.cached < self.target

    def finished(self) -> bool:
        req, out = self.request, self.generated
        if len(out) >= req.max_tokens:
            return True
        if req.stop_token is not None and out[-1] == req.stop_token:
            return True
        seq = req.stop_sequence
        if not seq:
            return False
        # BUG: on a mismatch it starts over (0, or 1 if the token opens the sequence)
        self.matched = self.matched + 1 if out[-1] == seq[self.matched] else int(out[-1] == seq[0])
        return self.matched == len(seq)


class Engine:
    """Paged KV cache: FIFO admission against free blocks, decode before prefill under one token
    budget, a block per block_size tokens, newest-first preemption by recomputation."""

    def __init__(self, model: Any, num_blocks: int, block_size: int, token_budget: int) -> None:
        if min(num_blocks, block_size, token_budget) < 1:
            raise ValueError("num_blocks, block_size and token_budget must be at least 1")
        self._model = model
        self._block_size = block_size
        self._budget = token_budget
        self._free: list[int] = list(range(num_blocks - 1, -1, -1))  # pop() gives 0, 1, 2...
        self._running: list[_Seq] = []
        self._waiting: deque[_Seq] = deque()

    def submit(self, request: Any) -> None:
        """Queue a request (FIFO). Safe between steps and from inside a callback."""
        self._waiting.append(_Seq(request))

    def free_blocks(self) -> int:
        return len(self._free)

    def run_until_idle(self) -> None:
        while self.step():
            pass

    def step(self) -> bool:
        if not self._running and not self._waiting:
            return False
        budget = self._budget
        batch, preempted = self._plan_decode(budget)
        budget -= len(batch)
        if batch:
            rows = [(s.request.request_id, s.tokens()[-1], s.cached, list(s.table))
                    for s in batch]
            for seq, token in zip(batch, self._model.decode(rows), strict=True):
                seq.cached += 1
                self._append(seq, int(token))
        for seq in [s for s in self._running if s.prefilling()]:
            if budget == 0:
                break
            budget -= self._prefill(seq, budget)
        while not preempted and self._waiting and budget > 0:
            seq = self._waiting[0]
            if seq.request.max_tokens <= 0:  # ends at admission: no blocks, no budget
                self._waiting.popleft()
                seq.request.callback(seq.request.request_id, [])
                continue
            seq.target = len(seq.request.prompt) + len(seq.generated)
            need = self._blocks_for(seq.target)
            if need > len(self._free):
                break  # FIFO: the head waits for blocks, nobody overtakes it
            self._waiting.popleft()
            seq.table = [self._free.pop() for _ in range(need)]
            seq.cached = 0
            self._running.append(seq)
            budget -= self._prefill(seq, budget)
        return True

    def _blocks_for(self, tokens: int) -> int:
        return -(-tokens // self._block_size)

    def _plan_decode(self, budget: int) -> tuple[list[_Seq], bool]:
        """The decode batch, in admission order: each sequence gets the block its next position
        needs, preempting the newest running sequence (maybe itself) while none is free."""
        batch: list[_Seq] = []
        preempted = False
        for seq in list(self._running):
            if len(batch) == budget:
                break
            if seq not in self._running or seq.prefilling():
                continue
            need = self._blocks_for(seq.cached + 1)
            while len(seq.table) < need and not self._free:
                victim = self._running[-1]
                self._release(victim)
                self._waiting.appendleft(victim)
                preempted = True
                if victim is seq:
                    break
            if seq not in self._running:
                continue
            if len(seq.table) < need:
                seq.table.append(self._free.pop())
            batch.append(seq)
        return batch, preempted

    def _prefill(self, seq: _Seq, budget: int) -> int:
        """One chunk of at most `budget` tokens; the last chunk samples the next token."""
        chunk = seq.tokens()[seq.cached:seq.target][:budget]
        token = self._model.prefill(seq.request.request_id, chunk, list(seq.table), seq.cached)
        seq.cached += len(chunk)
        if not seq.prefilling():
            self._append(seq, int(token))
        return len(chunk)

    def _append(self, seq: _Seq, token: int) -> None:
        seq.generated.append(token)
        if seq.finished():
            # Free before the callback: a callback may submit() more work.
            self._release(seq)
            seq.request.callback(seq.request.request_id, list(seq.generated))

    def _release(self, seq: _Seq) -> None:
        self._running.remove(seq)
        self._free.extend(reversed(seq.table))
        seq.table = []
        seq.cached = 0
        seq.target = 0
