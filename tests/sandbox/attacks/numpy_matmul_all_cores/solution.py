import os

import numpy as np

import support as kit


def solve(tag, *args):
    if tag == "t0":
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[name] = "64"  # too late for the loaded BLAS, tried anyway
        try:
            os.sched_setaffinity(0, range(os.cpu_count() or 1))
        except OSError:
            pass
        a = np.random.default_rng(0).random((600, 600))
        while True:
            a = a @ a
            a /= np.abs(a).max() or 1.0
    return kit.miss(tag)
