"""How long a grading holds its slot, measured by the worker and kept in Redis: an
exponentially weighted mean and variance of the recent slot times of each problem and mode
(and of each queue kind and mode, for a problem not measured yet). `grading/queueing.py`
estimates a waiting run's start from these.

The slot time is the worker's whole task, from taking the job to handing its verdict out (the
claim, building the spec, the judge, storing and announcing the result), which is what the runs
behind it wait for; the database's start-to-verdict span leaves the ends out. The weighting
follows the machine: a grading slowed by load moves the mean within a few runs, where a median
of the last thirty would lag. Redis down: nothing is recorded and the estimate falls back to
the database (never an error for the run).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import connection

log = logging.getLogger(__name__)

ALPHA = 0.3  # weight of the newest slot time in the mean (about the last 6 runs count)
KEY_TTL_SECONDS = 7 * 24 * 3600  # a group unmeasured for a week starts over
KEY = "onsite:service:{db}:{kind}:{mode}:{problem}"

# Atomic update of one group's weighted mean and variance (two workers may finish at once).
_UPDATE = """
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local x = tonumber(ARGV[1])
local alpha = tonumber(ARGV[2])
local mean = x
local var = 0
if n > 0 then
  local old = tonumber(redis.call('HGET', KEYS[1], 'mean'))
  local oldvar = tonumber(redis.call('HGET', KEYS[1], 'var'))
  local diff = x - old
  local incr = alpha * diff
  mean = old + incr
  var = (1 - alpha) * (oldvar + diff * incr)
end
redis.call('HSET', KEYS[1], 'n', n + 1, 'mean', tostring(mean), 'var', tostring(var))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return n + 1
"""


@dataclass(frozen=True)
class Measured:
    """One group's weighted slot time: `n` samples, their weighted mean and variance."""

    n: int
    mean: float
    var: float = 0.0

    @property
    def sd(self) -> float:
        return math.sqrt(max(self.var, 0.0))

    def add(self, seconds: float, alpha: float = ALPHA) -> Measured:
        """The group after one more sample (pure; the Lua script above does the same)."""
        if self.n == 0:
            return Measured(1, seconds, 0.0)
        diff = seconds - self.mean
        incr = alpha * diff
        return Measured(self.n + 1, self.mean + incr, (1 - alpha) * (self.var + diff * incr))


EMPTY = Measured(0, 0.0, 0.0)


def redis_glob_escape(text: str) -> str:
    return "".join("\\" + ch if ch in "*?[]\\" else ch for ch in text)


def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


def _db() -> str:
    """Problem ids belong to one database: two platforms (or test runs) sharing a Redis must
    not read each other's times."""
    return str(connection.settings_dict.get("NAME", ""))


def _key(kind: str, mode: str, problem_id: int | None) -> str:
    problem = "*" if problem_id is None else str(problem_id)  # "*": the kind's whole group
    return KEY.format(db=_db(), kind=kind, mode=mode, problem=problem)


def record(*, kind: str, mode: str, problem_id: int, seconds: float) -> None:
    """One finished grading's slot time, into its problem's and its kind's groups."""
    try:
        client = _client()
        script = client.register_script(_UPDATE)
        for key in (_key(kind, mode, problem_id), _key(kind, mode, None)):
            script(keys=[key], args=[repr(float(seconds)), repr(ALPHA), KEY_TTL_SECONDS])
    except redis.RedisError:
        log.warning("could not record a grading's slot time")


def read(*, kind: str, mode: str, problem_id: int | None) -> Measured:
    """The group's measured slot time (EMPTY when unmeasured or Redis cannot be read)."""
    try:
        raw = _client().hgetall(_key(kind, mode, problem_id))
    except redis.RedisError:
        return EMPTY
    if not raw:
        return EMPTY
    try:
        return Measured(int(raw[b"n"]), float(raw[b"mean"]), float(raw[b"var"]))
    except (KeyError, ValueError):
        return EMPTY


def forget_all() -> int:
    """Drop every measurement of this database's problems (an operator after a hardware
    change; tests, whose problem ids come back in the next test); how many groups."""
    pattern = KEY.format(db=redis_glob_escape(_db()), kind="*", mode="*", problem="*")
    try:
        client = _client()
        keys = list(client.scan_iter(match=pattern, count=500))
        return int(client.delete(*keys)) if keys else 0
    except redis.RedisError:
        log.warning("could not drop the slot times")
        return 0
