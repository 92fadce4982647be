#!/usr/bin/python3
"""Cost of keyspace notifications and client tracking, Ruvio against Debian's redis-server
7.0.15 in the same run: a fresh pinned server per row and kind (bench/common.py's start),
one pipelined raw-socket client (64 commands per write) on 10,000 keys, server CPU µs per
request from /proc/<pid>/task/*/schedstat as the primary figure, req/s beside it, foreign CPU
(everything on the machine but the server and this client) recorded per row.

Rows (each relative to its baseline row of the same server):
  SET / GET                      notify-keyspace-events "" (the baseline)
  SET / GET KEA, no subscriber   notify-keyspace-events KEA, nobody listens
  SET / GET KEA, 1 subscriber    KEA and one PSUBSCRIBE __key*@*__:* client draining
  GET tracking                   the client runs CLIENT TRACKING ON (RESP3) first: every GET
                                 remembers its key (the baseline is plain GET)

A Python client is used (not redis-benchmark) because redis-benchmark cannot turn tracking
on; the server's CPU per request is what is compared, the client's speed only sets req/s.

Usage: bench/notify.py [--requests 200000] [--rounds 5] [--no-write]
Rounds are interleaved (every row on both servers per round, the order alternating); each
relative figure is against the baseline of its own round and server, and the table shows
the medians over the rounds.
Writes bench/results/<date>-notify.json.
"""

import argparse
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

KEYS = 10000
BATCH = 64


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def roundtrip(self, payload, replies):
        """Sends, then reads until `replies` CRLF-terminated top-level replies arrived
        (only simple replies and bulks of the bench: +OK, $5 value, pushes counted out)."""
        self.s.sendall(payload)
        buf = b""
        need = replies
        while True:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                raise RuntimeError("closed")
            buf += chunk
            n = buf.count(b"\r\n")
            # +OK is one line, a bulk two: the bench's replies only
            if n >= need:
                return buf

    def call(self, *args):
        self.s.sendall(common.resp(*args))
        time.sleep(0.02)
        return self.s.recv(1 << 16)


def drain(port, stop):
    c = Conn(port)
    c.s.sendall(common.resp("PSUBSCRIBE", "__key*@*__:*"))
    c.s.settimeout(0.2)
    while not stop.is_set():
        try:
            if not c.s.recv(1 << 20):
                break
        except socket.timeout:
            pass
    c.s.close()


def load(port, verb, requests, tracking=False):
    c = Conn(port)
    if tracking:
        c.call("HELLO", "3")
        c.call("CLIENT", "TRACKING", "ON")
    per_reply = 1 if verb == "SET" else 2
    sent = 0
    i = 0
    while sent < requests:
        cmds = []
        for _ in range(BATCH):
            k = b"key:%06d" % (i % KEYS)
            i += 1
            cmds.append(common.resp(b"SET", k, b"value") if verb == "SET" else common.resp(b"GET", k))
        c.roundtrip(b"".join(cmds), BATCH * per_reply)
        sent += BATCH
    c.s.close()
    return sent


ROWS = [
    ("SET", "SET", "", False, False),
    ("SET KEA, no subscriber", "SET", "KEA", False, False),
    ("SET KEA, 1 subscriber", "SET", "KEA", True, False),
    ("GET", "GET", "", False, False),
    ("GET KEA, no subscriber", "GET", "KEA", False, False),
    ("GET KEA, 1 subscriber", "GET", "KEA", True, False),
    ("GET tracking", "GET", "", False, True),
]


def run_row(kind, row, requests):
    name, verb, flags, subscriber, tracking = row
    srv, pid = common.start(kind)
    stop = threading.Event()
    th = None
    try:
        c = Conn(srv.port)
        load(srv.port, "SET", KEYS)  # every key exists
        if flags:
            c.call("CONFIG", "SET", "notify-keyspace-events", flags)
        if subscriber:
            th = threading.Thread(target=drain, args=(srv.port, stop), daemon=True)
            th.start()
            time.sleep(0.2)
        load(srv.port, verb, 20000, tracking)  # warm-up
        cpu0, busy0, self0, t0 = (common.server_cpu_ns(pid), common.system_busy_seconds(),
                                  time.process_time(), time.monotonic())
        n = load(srv.port, verb, requests, tracking)
        cpu1, busy1, self1, t1 = (common.server_cpu_ns(pid), common.system_busy_seconds(),
                                  time.process_time(), time.monotonic())
        server_s = (cpu1 - cpu0) / 1e9
        foreign = max(0.0, (busy1 - busy0) - server_s - (self1 - self0))
        return {"row": name, "server": kind, "requests": n,
                "server_cpu_us_per_request": round(server_s * 1e6 / n, 3),
                "requests_per_second": round(n / (t1 - t0)),
                "foreign_cpu_seconds": round(foreign, 2), "wall_seconds": round(t1 - t0, 2)}
    finally:
        stop.set()
        if th is not None:
            th.join(timeout=2)
        srv.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    # Interleaved rounds (as collections_throughput.py's measure_and_report): every round runs
    # every row on both servers, the server order alternating, and each row's relative figure
    # is taken against its baseline of the same round and server; the table shows medians.
    results = []
    load_before = os.getloadavg()
    for rnd in range(a.rounds):
        order = ("redis", "ruvio") if rnd % 2 == 0 else ("ruvio", "redis")
        print(f"round {rnd + 1}/{a.rounds}: {' then '.join(order)}  (load {os.getloadavg()})",
              file=sys.stderr, flush=True)
        this = []
        for row in ROWS:
            for kind in order:
                r = run_row(kind, row, a.requests)
                r["round"] = rnd + 1
                this.append(r)
                print(r, flush=True)
        base = {(r["server"], r["row"]): r["server_cpu_us_per_request"] for r in this
                if r["row"] in ("SET", "GET")}
        for r in this:
            b = base.get((r["server"], r["row"].split()[0]))
            r["relative_to_baseline"] = round(r["server_cpu_us_per_request"] / b, 3) if b else None
        results += this
    load_after = os.getloadavg()
    rows = []
    medians = {}
    for row in ROWS:
        cells = [row[0]]
        for kind in ("redis", "ruvio"):
            rs = [r for r in results if r["row"] == row[0] and r["server"] == kind]
            us = common.median([r["server_cpu_us_per_request"] for r in rs])
            rel = common.median([r["relative_to_baseline"] for r in rs])
            rps = common.median([r["requests_per_second"] for r in rs])
            medians.setdefault(row[0], {})[kind] = {
                "server_cpu_us_per_request": us, "relative_to_baseline": rel,
                "requests_per_second": rps,
                "relative_per_round": [r["relative_to_baseline"] for r in rs]}
            cells += [f"{us:.2f}", f"{rel:.2f}x", f"{rps:,}"]
        rows.append(cells)
    print(common.table(["row", "redis µs/req", "redis rel", "redis req/s", "ruvio µs/req",
                        "ruvio rel", "ruvio req/s"], rows))
    foreign = [r["foreign_cpu_seconds"] for r in results]
    busy = sum(1 for f in foreign if f > 0.5)
    print(f"load average before {load_before}, after {load_after}; foreign CPU per row "
          f"max {max(foreign):.2f} s")
    if busy:
        print(f"WARNING: {busy} of {len(foreign)} rows ran beside more than 0.5 s of foreign "
              f"CPU: the machine was busy, these figures are not reliable.")
    if not a.no_write:
        path = common.write_result("notify", {
            "command": " ".join(["bench/notify.py"] + sys.argv[1:]),
            "servers": {k: common.server_command(k) for k in ("redis", "ruvio")},
            "method": __doc__.strip().split("\n\n")[0], "rounds": a.rounds,
            "load_average_before": load_before, "load_average_after": load_after,
            "rows_with_foreign_cpu_over_0_5s": busy, "medians": medians, "results": results})
        print("wrote", path)


if __name__ == "__main__":
    main()
