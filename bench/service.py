"""The referee service on loopback: command round trips and published updates per second, next
to raw pyzmq REQ/REP and PUB/SUB loops measured in the same run.

    python -m bench.service [--quick]
    python -m bench.service --fuzz 100000 [--seed S]

Commands are The Plan's commit/withdraw of a Plan (each one engine call, its events appended
and fsynced to SQLite, then published); "ping" is the service alone. The durability baseline is
a bare pyzmq ROUTER/PUB loop that takes every waiting message, appends them to a file with one
fsync per batch, then replies and publishes one event each: the least any durable referee must
do. Reply and event latency (send -> reply, send -> event seen on SUB) are measured the same way
against both, from one DEALER + SUB client, with the files in the same directory.

--fuzz N sends N hostile messages (random bytes, mutated and truncated commands, huge numbers,
deep nesting, wrong field types, multi-frame and empty messages, now and then one over the wire
limit) to a real referee over loopback, in chunks; after each chunk every message must have been
answered exactly once and a fresh client must get a ping answered. tests/test_referee_hardening.py
runs a short seeded round of the same.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import zmq

from referee.client import Connection, StateMirror
from referee.protocol import MAX_MESSAGE_BYTES, MAX_WIRE_BYTES, encode
from referee.service import RefereeService
from referee.session import GameSession
from referee.store import EventStore


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def raw_req_rep(n: int) -> list[float]:
    ctx = zmq.Context.instance()
    rep, req = ctx.socket(zmq.REP), ctx.socket(zmq.REQ)
    port = rep.bind_to_random_port("tcp://127.0.0.1")
    req.connect(f"tcp://127.0.0.1:{port}")

    def echo() -> None:
        for _ in range(n):
            rep.send(rep.recv())

    t = threading.Thread(target=echo)
    t.start()
    samples = []
    payload = encode({"id": "x", "type": "ping"})
    for _ in range(n):
        start = time.perf_counter()
        req.send(payload)
        req.recv()
        samples.append(time.perf_counter() - start)
    t.join()
    rep.close(0)
    req.close(0)
    return samples


def raw_pub_sub(n: int) -> float:
    # A context of its own: sockets the referee run left in the shared one (a mirror still
    # reconnecting to a closed port) must not share its I/O thread or its ports.
    ctx = zmq.Context()
    pub, sub = ctx.socket(zmq.PUB), ctx.socket(zmq.SUB)
    port = pub.bind_to_random_port("tcp://127.0.0.1")
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.setsockopt(zmq.RCVHWM, 0)
    pub.setsockopt(zmq.SNDHWM, 0)
    sub.connect(f"tcp://127.0.0.1:{port}")
    # Wait until the subscription has reached the PUB (a fixed sleep is too short on a busy machine).
    while not sub.poll(10):
        pub.send_multipart([b"probe", b""])
    while sub.poll(50):
        sub.recv_multipart()
    payload = encode({"seq": 1, "event": {"type": "plan_committed", "public": {"player": "ann"}}})
    start = time.perf_counter()
    for _ in range(n):
        pub.send_multipart([b"event", payload])
    received, last = 0, start
    while received < n and sub.poll(1000):  # never hang on a lost message: count what arrived
        sub.recv_multipart()
        received += 1
        last = time.perf_counter()
    # Up to the last arrival: a lost message must not add the wait for it to the time.
    rate = received / max(last - start, 1e-9)
    pub.close(0)
    sub.close(0)
    ctx.term()
    return rate


# ---- fuzzing --------------------------------------------------------------------------------
_TYPES = ["ping", "snapshot", "join", "view", "commit_plan", "withdraw_plan", "pass_plans", "claim_trinket"]
_ODD_VALUES: list[object] = [
    None,
    True,
    -1,
    0,
    2**63,
    1.5e300,
    "",
    "ann",
    "x" * 300,
    [],
    {},
    [[0, 0]] * 4,
    {"a": {"b": [1]}},
]


def _hostile_value(rng: random.Random) -> bytes:
    """The JSON text of a value meant to hurt: huge numbers, deep nesting, non-JSON constants."""
    pick = rng.randrange(8)
    if pick == 0:
        return b"1" + b"0" * rng.choice([40, 4301, 20_000])
    if pick == 1:
        return rng.choice([b"NaN", b"Infinity", b"-Infinity", b"1e999", b"-1e-999"])
    if pick == 2:
        depth = rng.choice([17, 100, 5000])
        return b"[" * depth + b"]" * depth
    if pick == 3:
        return b'"' + bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 40))).replace(b'"', b"") + b'"'
    if pick == 4:
        return b'"' + b"\\ud800" * rng.randrange(1, 5) + b'"'  # lone surrogates
    return json.dumps(rng.choice(_ODD_VALUES)).encode()


def hostile_message(rng: random.Random, seats: list[str]) -> list[bytes]:
    """One message for the referee's ROUTER (a list of frames) from a seeded generator."""
    kind = rng.randrange(10)
    body: dict[str, object] = {"v": 1, "id": f"f{rng.getrandbits(40):x}", "type": rng.choice(_TYPES)}
    if rng.random() < 0.7:
        body["player"] = rng.choice([*seats, "mallory", 7, ["ann"]])
    if rng.random() < 0.5:
        body[rng.choice(["plan", "plans", "token", "trinket", "blind", "to"])] = rng.choice(_ODD_VALUES)
    raw = json.dumps(body).encode()
    if kind == 0:  # random bytes
        return [bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 200)))]
    if kind == 1:  # a hostile value spliced in as a field
        return [raw[:-1] + b', "n": ' + _hostile_value(rng) + b"}"]
    if kind == 2:  # truncated
        return [raw[: rng.randrange(len(raw))]]
    if kind == 3:  # bytes flipped
        data = bytearray(raw)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.getrandbits(8)
        return [bytes(data)]
    if kind == 4:  # the envelope's own fields of the wrong type
        key = rng.choice(["v", "id", "type", "player"])
        return [raw[:-1] + b", " + json.dumps(key).encode() + b": " + _hostile_value(rng) + b"}"]
    if kind == 5:  # several frames, or none with content
        return rng.choice([[b"", raw], [raw, raw, b"x"], [b""], [b"", b""]])
    if kind == 6:  # a little too large: answered "too_large"
        return [raw[:-1] + b', "pad": "' + b"a" * (MAX_MESSAGE_BYTES + rng.randrange(1, 1000)) + b'"}']
    if kind == 7:  # a whole hostile value instead of an object
        return [_hostile_value(rng)]
    return [raw]  # well formed: the session and the engine get to see it


@dataclass
class FuzzReport:
    sent: int = 0
    answered: int = 0
    unanswered: int = 0
    cut_off: int = 0  # messages over the wire limit, dropped by ZeroMQ with their connection
    codes: Counter = field(default_factory=Counter)
    failed_pings: int = 0
    errors_logged: int = 0  # exceptions the referee's guards caught and logged
    alive: bool = True

    @property
    def crashes(self) -> int:
        return self.failed_pings + self.unanswered + (0 if self.alive else 1)


class _CountErrors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def _drain(sock: zmq.Socket, expected: int, report: FuzzReport, timeout_s: float) -> None:
    got = 0
    deadline = time.monotonic() + timeout_s
    while got < expected and (left := deadline - time.monotonic()) > 0:
        if not sock.poll(int(left * 1000) + 1):
            break
        msg = json.loads(sock.recv())
        if msg.get("type") == "private":
            continue
        got += 1
        report.codes["ok" if msg.get("ok") else msg["error"]["code"]] += 1
    report.answered += got
    report.unanswered += expected - got


def fuzz_referee(
    service_endpoint: str, messages: int, seed: int, seats: list[str], chunk: int = 500, clients: int = 4
) -> FuzzReport:
    """Send `messages` hostile messages to the referee at `service_endpoint` (see hostile_message)."""
    rng = random.Random(seed)
    ctx = zmq.Context.instance()
    report = FuzzReport()
    socks = []
    for i in range(clients):
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(service_endpoint)
        if i == 0 and seats:  # one fuzzer holds a seat, so mutated commands reach the engine
            sock.send(encode({"id": "fuzz-join", "type": "join", "player": seats[0]}))
            _drain(sock, 1, report, 10)
        socks.append(sock)
    probe = Connection(service_endpoint)
    try:
        while report.sent < messages:
            counts = [0] * clients
            for _ in range(min(chunk, messages - report.sent)):
                if rng.random() < 0.001:
                    # Over ZMQ_MAXMSGSIZE: ZeroMQ drops that connection unread; a throwaway socket
                    # sends it so the others' replies are still counted.
                    big = ctx.socket(zmq.DEALER)
                    big.setsockopt(zmq.LINGER, 1000)
                    big.connect(service_endpoint)
                    big.send(b"x" * (MAX_WIRE_BYTES + 1 + rng.randrange(4 * MAX_WIRE_BYTES)))
                    big.close()
                    report.cut_off += 1
                else:
                    i = rng.randrange(clients)
                    socks[i].send_multipart(hostile_message(rng, seats))
                    counts[i] += 1
                report.sent += 1
            for sock, n in zip(socks, counts):
                _drain(sock, n, report, 30)
            try:
                probe.request("ping", timeout_s=5, retries=1)
            except Exception:
                report.failed_pings += 1
    finally:
        probe.close()
        for sock in socks:
            sock.close(0)
    return report


def run_fuzz(messages: int, seed: int, db_dir: str | Path) -> FuzzReport:
    """A real referee (The Plan, three seats, SQLite in `db_dir`) in a thread, fuzzed over loopback."""
    seats = ["ann", "bob", "cat"]
    counter = _CountErrors()
    logger = logging.getLogger("tabletop.referee")
    logger.addHandler(counter)
    level = logger.level
    logger.setLevel(logging.ERROR)  # counted whatever the caller's logging shows
    store = EventStore(Path(db_dir) / "fuzz.sqlite")
    session = GameSession.start("theplan", {"seats": seats}, seed, store)
    service = RefereeService(session, "tcp://127.0.0.1:*", "tcp://127.0.0.1:*", heartbeat_s=0.5)
    thread = threading.Thread(target=service.serve, daemon=True)
    thread.start()
    try:
        report = fuzz_referee(service.router_endpoint, messages, seed, seats)
        report.alive = thread.is_alive()
    finally:
        service.stop()
        thread.join(5)
        service.close()
        store.close()
        logger.removeHandler(counter)
        logger.setLevel(level)
    report.errors_logged = counter.count
    return report


def bare_durable_loop(log_path: Path, stop: threading.Event) -> tuple[str, str, threading.Thread]:
    """ROUTER + PUB: drain what is waiting, append it to a file, fsync once, then reply to each and
    publish one event each. Returns its endpoints and the thread serving them."""
    ctx = zmq.Context.instance()
    router, pub = ctx.socket(zmq.ROUTER), ctx.socket(zmq.PUB)
    router.bind("tcp://127.0.0.1:*")
    pub.bind("tcp://127.0.0.1:*")
    endpoints = router.getsockopt_string(zmq.LAST_ENDPOINT), pub.getsockopt_string(zmq.LAST_ENDPOINT)

    def serve() -> None:
        seq = 0
        with open(log_path, "ab") as log:
            while not stop.is_set():
                if not router.poll(100):
                    continue
                batch = []
                while True:
                    try:
                        batch.append(router.recv_multipart(zmq.NOBLOCK))
                    except zmq.Again:
                        break
                for _identity, raw in batch:
                    log.write(raw + b"\n")
                log.flush()
                os.fsync(log.fileno())
                for identity, raw in batch:
                    seq += 1
                    rid = json.loads(raw)["id"]
                    router.send_multipart([identity, encode({"id": rid, "ok": True, "seq": seq})])
                    pub.send_multipart([b"event", encode({"seq": seq, "event": {"type": "x"}})])
        router.close(0)
        pub.close(0)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return endpoints[0], endpoints[1], thread


def reply_and_event_latency(
    router_ep: str, pub_ep: str, messages: list[dict], first: dict | None = None
) -> tuple[list[float], list[float]]:
    """Send each message and time its reply and the first event published after it (`first`, e.g.
    a join, is sent and answered before timing starts)."""
    ctx = zmq.Context.instance()
    dealer, sub = ctx.socket(zmq.DEALER), ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"event")
    sub.connect(pub_ep)
    dealer.connect(router_ep)
    if first is not None:
        dealer.send(encode(first))
        answer = json.loads(dealer.recv())
        if not answer.get("ok"):
            raise RuntimeError(f"the referee refused {first['type']}: {answer}")
    replies, events = [], []
    subscribed = False  # until the first event arrives the subscription may not be there yet: untimed
    for message in messages:
        start = time.perf_counter()
        dealer.send(encode(message))
        got_reply = got_event = None
        while got_reply is None or got_event is None:
            if got_reply is None and dealer.poll(0):
                if json.loads(dealer.recv()).get("id") == message["id"]:
                    got_reply = time.perf_counter()
                continue
            if got_event is None and sub.poll(0):
                sub.recv_multipart()
                got_event = time.perf_counter()
                continue
            poller = zmq.Poller()
            poller.register(dealer, zmq.POLLIN)
            poller.register(sub, zmq.POLLIN)
            if not poller.poll(10_000 if subscribed else 200):
                if not subscribed:
                    break
                raise RuntimeError("no reply or event within 10 s")
        if subscribed:
            replies.append(got_reply - start)
            events.append(got_event - start)
        subscribed = got_event is not None
        while sub.poll(0):  # a command may publish more than one event
            sub.recv_multipart()
    dealer.close(0)
    sub.close(0)
    return replies, events


def plan_commands(n: int, plan: str, prefix: str) -> list[dict]:
    return [
        {"id": f"{prefix}{i}", "player": "ann", "type": "commit_plan", "plan": plan}
        if i % 2 == 0
        else {"id": f"{prefix}{i}", "player": "ann", "type": "withdraw_plan"}
        for i in range(n)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.service", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--fuzz", type=int, metavar="N", help="send N hostile messages instead of timing")
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the --fuzz messages (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    if args.fuzz is not None:
        # Errors (with their tracebacks) only: otherwise one warning per refused message.
        logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(message)s")
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            report = run_fuzz(args.fuzz, args.seed, tmp)
        elapsed = time.perf_counter() - start
        print(f"fuzzed the referee with {report.sent:,} messages (seed {args.seed}) in {elapsed:.1f} s")
        print(
            f"  answered: {report.answered:,}; cut off by ZMQ_MAXMSGSIZE (connection dropped): {report.cut_off}"
        )
        print(f"  replies: {', '.join(f'{code} {n:,}' for code, n in report.codes.most_common())}")
        print(f"  errors caught and logged by the referee's guards: {report.errors_logged}")
        print(
            f"  crashes: {report.crashes} (unanswered {report.unanswered}, failed pings {report.failed_pings}, "
            f"referee thread {'alive' if report.alive else 'DEAD'})"
        )
        return 0 if report.crashes == 0 and report.errors_logged == 0 else 1
    n = 200 if args.quick else 1000
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(Path(tmp) / "bench.sqlite")
        session = GameSession.start("theplan", {"seats": ["ann", "bob", "cat"]}, 1, store)
        service = RefereeService(session, "tcp://127.0.0.1:*", "tcp://127.0.0.1:*", heartbeat_s=1.0)
        thread = threading.Thread(target=service.serve, daemon=True)
        thread.start()
        conn = Connection(service.router_endpoint)
        conn.join("ann")
        plan = session.game.legal_commands("ann")[0].to_dict()["plan"]
        mirror = StateMirror(service.router_endpoint, service.pub_endpoint)

        ping = []
        for _ in range(n):
            start = time.perf_counter()
            conn.request("ping")
            ping.append(time.perf_counter() - start)
        command = []
        for i in range(n):
            start = time.perf_counter()
            reply = conn.request(
                "commit_plan" if i % 2 == 0 else "withdraw_plan", **({"plan": plan} if i % 2 == 0 else {})
            )
            command.append(time.perf_counter() - start)
            assert reply["ok"], reply
        # Updates/s as a subscriber sees them: a burst of pipelined commands, then count.
        mirror.poll(0.5)
        first_seq = mirror.seq
        start = time.perf_counter()
        for i in range(n):
            body = {"plan": plan} if i % 2 == 0 else {}
            conn.sock.send(
                encode(
                    {
                        "id": f"burst-{i}",
                        "type": "commit_plan" if i % 2 == 0 else "withdraw_plan",
                        "player": "ann",
                        **body,
                    }
                )
            )
        target = 0
        for _ in range(n):  # every reply carries the seq of its command's last event
            if conn.sock.poll(60_000):
                target = max(target, json.loads(conn.sock.recv()).get("seq", 0))
        while mirror.seq < target and time.perf_counter() - start < 60:
            mirror.poll(0.2)
        updates_rate = (mirror.seq - first_seq) / (time.perf_counter() - start)
        referee_reply, referee_event = reply_and_event_latency(
            service.router_endpoint,
            service.pub_endpoint,
            plan_commands(n, plan, "lat-"),
            first={"id": "lat-join", "type": "join", "player": "ann", "token": conn.tokens["ann"]},
        )
        service.stop()
        thread.join(5)
        service.close()
        store.close()
        stop = threading.Event()
        router_ep, pub_ep, bare = bare_durable_loop(Path(tmp) / "bare.log", stop)
        bare_reply, bare_event = reply_and_event_latency(router_ep, pub_ep, plan_commands(n, plan, "bare-"))
        stop.set()
        bare.join(5)

    raw = raw_req_rep(n)
    raw_rate = raw_pub_sub(20 * n)
    ms = 1e3
    print(f"referee service on loopback ({n} requests each; one client; events fsynced to SQLite)")
    print(f"{'':34} {'p50':>9} {'p99':>9}  {'p50 vs raw':>10}")
    print(
        f"{'raw pyzmq REQ/REP echo':34} {statistics.median(raw) * ms:8.3f}ms {percentile(raw, 0.99) * ms:8.3f}ms  {1:>9.1f}x"
    )
    for name, samples in (("ping (service alone)", ping), ("commit/withdraw a Plan (stored)", command)):
        ratio = statistics.median(samples) / statistics.median(raw)
        print(
            f"{name:34} {statistics.median(samples) * ms:8.3f}ms {percentile(samples, 0.99) * ms:8.3f}ms  {ratio:>9.1f}x"
        )
    print(
        f"published updates/s seen by a subscriber: {updates_rate:,.0f} (raw PUB/SUB: {raw_rate:,.0f}/s; {raw_rate / updates_rate:.1f}x)"
    )
    print("durable commands, one at a time (send -> reply, send -> its event on SUB):")
    print(f"{'':34} {'p50':>9} {'p99':>9}  {'p50 vs bare':>11}")
    rows = (
        ("bare ROUTER/PUB + fsync: reply", bare_reply, bare_reply),
        ("bare ROUTER/PUB + fsync: event", bare_event, bare_event),
        ("referee commit/withdraw: reply", referee_reply, bare_reply),
        ("referee commit/withdraw: event", referee_event, bare_event),
    )
    for name, samples, base in rows:
        ratio = statistics.median(samples) / statistics.median(base)
        print(
            f"{name:34} {statistics.median(samples) * ms:8.3f}ms {percentile(samples, 0.99) * ms:8.3f}ms  {ratio:>10.1f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
