"""The referee service on loopback: command round trips and published updates per second, next
to raw pyzmq REQ/REP and PUB/SUB loops measured in the same run.

    python -m bench.service [--quick]

Commands are The Plan's commit/withdraw of a Plan (each one engine call, its events appended
and fsynced to SQLite, then published); "ping" is the service alone. The durability baseline is
a bare pyzmq ROUTER/PUB loop that takes every waiting message, appends them to a file with one
fsync per batch, then replies and publishes one event each: the least any durable referee must
do. Reply and event latency (send -> reply, send -> event seen on SUB) are measured the same way
against both, from one DEALER + SUB client, with the files in the same directory.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

import zmq

from referee.client import Connection, StateMirror
from referee.protocol import encode
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
    ctx = zmq.Context.instance()
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
    received = 0
    while received < n and sub.poll(5000):  # never hang on a lost message: count what arrived
        sub.recv_multipart()
        received += 1
    rate = received / (time.perf_counter() - start)
    pub.close(0)
    sub.close(0)
    return rate


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
        dealer.recv()
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
    args = parser.parse_args(argv)
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
            first={"id": "lat-join", "type": "join", "player": "ann"},
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
