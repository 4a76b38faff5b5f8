"""Preemptive priority scheduler: implement the function below."""


def schedule(capacity: int, requests: list[list[int]]) -> list[list[int]]:
    """Simulate the scheduler; return ``[id, finish_time]`` pairs in completion order.

    ``requests[i] = [id, arrival, priority, work]``, sorted by arrival; the list position is
    the arrival order used to break ties.
    """
    raise NotImplementedError
