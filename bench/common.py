"""Small helpers shared by the benchmarks (and the tests that start a referee on loopback)."""

from __future__ import annotations

import socket
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


def free_port_pair() -> int:
    """A port p with p and p + 1 free (the CLI finds updates on the command port + 1)."""
    for _ in range(200):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            with socket.socket() as b:
                try:
                    b.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
            return port
    raise RuntimeError("no two consecutive free ports on loopback")
