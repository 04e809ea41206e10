"""Small timing helpers shared by the benchmarks."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeats: int = 5, min_time_s: float = 0.02) -> float:
    """Median seconds per call of `fn`, each sample long enough to swamp timer noise."""
    fn()  # warm caches
    samples = []
    for _ in range(repeats):
        n, start = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time_s:
                break
        samples.append(elapsed / n)
    return statistics.median(samples)


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:9.3f} ms"
