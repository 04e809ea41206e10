"""Small helpers shared by the benchmarks (and the tests that start a referee on loopback)."""

from __future__ import annotations

import random
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
    """A port p with p and p + 1 free (the CLI finds updates on the command port + 1).

    Drawn below the kernel's ephemeral range: a port the kernel handed out (bind to 0) can be
    taken by any outgoing connection (another test's client, a browser) before the referee binds
    it, which made a test fail with "port already in use" once in many runs.
    """
    low = 20000
    high = max(_ephemeral_low() - 2, low + 1000)
    draw = random.SystemRandom()  # not a game's random choice: only needs to differ between workers
    for _ in range(200):
        port = draw.randrange(low, high)
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        return port
    raise RuntimeError("no two consecutive free ports on loopback")


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (Linux; 32768 where it cannot be read)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768
