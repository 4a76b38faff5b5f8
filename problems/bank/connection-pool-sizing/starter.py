"""Connection-pool sizing: implement the function below."""


def min_pool_size(arrivals: list[int], service: list[int], target_p99_wait: int) -> int:
    """Smallest pool size whose nearest-rank p99 queueing delay is at most ``target_p99_wait``."""
    raise NotImplementedError
