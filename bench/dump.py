#!/usr/bin/python3
"""DUMP and RESTORE of 1000-element values, Ruvio against Debian's redis-server 7.0.15 in the
same run: server CPU µs per call (the summed schedstat on-CPU ns of the measured process's
threads — Redis, or Ruvio's worker — over the test, divided by the calls) as the primary
figure, calls/s beside it. A fresh pinned server (bench/common.py) per round and kind; the
client (this script, pipelined 16 deep on one connection, on CLIENT_CPU) sends the same
bytes to both. The CPU everything else on the machine used meanwhile is recorded per test.

Rows (each value built by the server itself, then checked with DEBUG DIGEST-VALUE equal on
both servers; the payload RESTOREd is redis-server's DUMP of it, so both parse the same bytes):
  hash   1000 fields "f<i>" -> "v<i>"      (hashtable; DUMP writes RDB_TYPE_HASH)
  zset   1000 members "m<i>", score i*1.5 (skiplist; ZSET_2 with binary doubles)
  list   1000 elements "e<i>"              (quicklist of listpack nodes; QUICKLIST_2)
DUMP key, and RESTORE key2 0 <payload> REPLACE (so each call rebuilds the whole value).

Usage: bench/dump.py [--rounds 3] [--calls 3000] [--no-write]
       bench/dump.py --instructions [--calls 300] [--label after] [--worker-bin PATH]
Writes bench/results/<date>-dump.json; --instructions instead counts user-space instructions
per call with callgrind in the server process (bench/instructions.py's Grinder: a zeroed
count around the calls, the server's idle rate over the same wall time subtracted), which a
loaded machine does not disturb, into bench/results/<date>-dump-instructions.json (one
JSON per label, e.g. "before" with --worker-bin of an older worker and "after").
"""

import argparse
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

N = 1000
PIPELINE = 16
OTHER_CPU_LIMIT = 0.15


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            self.buf += self.s.recv(1 << 20)
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def reply(self):
        line = self._line()
        if line[:1] == b"$":
            n = int(line[1:])
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(1 << 20)
            v, self.buf = self.buf[:n], self.buf[n + 2:]
            return v
        if line[:1] == b"*":
            return [self.reply() for _ in range(int(line[1:]))]
        if line[:1] == b"-":
            raise RuntimeError(line.decode())
        return line[1:]

    def call(self, *args):
        self.s.sendall(common.resp(*args))
        return self.reply()

    def run(self, req, calls):
        """Sends `req` `calls` times, PIPELINE at a time; returns the last reply."""
        last = None
        done = 0
        while done < calls:
            k = min(PIPELINE, calls - done)
            self.s.sendall(req * k)
            for _ in range(k):
                last = self.reply()
            done += k
        return last


def build(c, kind):
    if kind == "hash":
        args = []
        for i in range(N):
            args += [f"f{i}", f"v{i}"]
        c.call("HSET", "v", *args)
    elif kind == "zset":
        args = []
        for i in range(N):
            args += [repr(i * 1.5), f"m{i}"]
        c.call("ZADD", "v", *args)
    else:
        c.call("RPUSH", "v", *[f"e{i}" for i in range(N)])


def start(kind):
    """common.start with DEBUG enabled (the digest check)."""
    return common.start(kind, ["--enable-debug-command", "yes"])


def measure(pid, fn):
    ns0, sys0, t0 = common.server_cpu_ns(pid), common.system_busy_seconds(), time.monotonic()
    me0 = time.process_time()
    fn()
    wall = time.monotonic() - t0
    ns = common.server_cpu_ns(pid) - ns0
    other = (common.system_busy_seconds() - sys0 - ns / 1e9 - (time.process_time() - me0)) / wall
    return ns, wall, other


def reference_payloads():
    """redis-server's DUMP of each value (what RESTORE sends) and its DEBUG DIGEST-VALUE."""
    ref, _ = start("redis")
    rc = Conn(ref.port)
    payloads, digests = {}, {}
    for kind in ("hash", "zset", "list"):
        rc.call("DEL", "v")
        build(rc, kind)
        payloads[kind] = rc.call("DUMP", "v")
        digests[kind] = rc.call("DEBUG", "DIGEST-VALUE", "v")
    ref.stop()
    return payloads, digests


def instructions(a):
    import json
    import instructions as ins
    payloads, _ = reference_payloads()
    results = {}
    for server in ("redis", "ruvio"):
        g = ins.Grinder(server, a.worker_bin)
        try:
            c = Conn(g.port)
            results[server] = {}
            for kind in ("hash", "zset", "list"):
                c.call("DEL", "v", "v2")
                build(c, kind)
                for op, req in (("DUMP", common.resp("DUMP", "v")),
                                ("RESTORE", common.resp("RESTORE", "v2", 0, payloads[kind], "REPLACE"))):
                    c.run(req, PIPELINE)  # warm
                    ir, wall, path = g.measure(lambda: c.run(req, a.calls))
                    per = (ir - g.idle_rate() * wall) / a.calls
                    results[server][f"{op} {kind}"] = {
                        "instructions_per_call": round(per),
                        "top_self": [{"ir_per_call": round(x / a.calls), "function": f}
                                     for x, f in ins.top_functions(path, 15)]}
                    print(f"  {server:5} {op} {kind}: {per:,.0f}", file=sys.stderr, flush=True)
            c.s.close()
        finally:
            g.stop()
    table = []
    for row in [f"{op} {k}" for k in ("hash", "zset", "list") for op in ("DUMP", "RESTORE")]:
        red = results["redis"][row]["instructions_per_call"]
        ruv = results["ruvio"][row]["instructions_per_call"]
        table.append([row, f"{red:,}", f"{ruv:,}", f"{ruv / red:.2f}"])
    print(common.table(["row", "redis instr/call", "ruvio instr/call", "ruvio/redis"], table))
    if a.no_write:
        return
    path = os.path.join(common.RESULTS, "2026-12-01-dump-instructions.json")
    doc = {}
    if os.path.exists(path):
        with open(path) as f:
            doc = json.load(f)
    head, dirty = common.git_commit()
    doc["name"] = "dump-instructions"
    doc.setdefault("runs", {})[a.label] = {
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "git_commit": head,
        "git_dirty": dirty, "worker_bin": a.worker_bin,
        "command": " ".join(["bench/dump.py", *sys.argv[1:]]), "calls": a.calls,
        "pipeline": PIPELINE, "elements": N, "results": results, "table": table}
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=None)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--label", default="after")
    ap.add_argument("--worker-bin", default=os.path.join(common.harness.BUILD, "worker",
                                                         "ruvio-worker"))
    a = ap.parse_args()
    if a.instructions:
        a.calls = a.calls or 300
        return instructions(a)
    a.calls = a.calls or 3000
    os.sched_setaffinity(0, {int(common.CLIENT_CPU)})
    payloads, digests = reference_payloads()
    samples = []
    for rnd in range(a.rounds):
        for server in ("redis", "ruvio"):
            srv, pid = start(server)
            c = Conn(srv.port)
            for kind in ("hash", "zset", "list"):
                c.call("DEL", "v", "v2")
                build(c, kind)
                if c.call("DEBUG", "DIGEST-VALUE", "v") != digests[kind]:
                    sys.exit(f"{server} {kind}: value differs from redis-server's")
                dump_req = common.resp("DUMP", "v")
                restore_req = common.resp("RESTORE", "v2", 0, payloads[kind], "REPLACE")
                for op, req in (("DUMP", dump_req), ("RESTORE", restore_req)):
                    ns, wall, other = measure(pid, lambda: c.run(req, a.calls))
                    if op == "RESTORE" and c.call("DEBUG", "DIGEST-VALUE", "v2") != digests[kind]:
                        sys.exit(f"{server} RESTORE {kind}: restored value differs")
                    samples.append({"round": rnd, "server": server, "row": f"{op} {kind}",
                                    "server_us_per_call": ns / 1e3 / a.calls,
                                    "calls_per_s": a.calls / wall, "other_cpu": other})
            c.s.close()
            srv.stop()
    rows, medians = [], {}
    for row in [f"{op} {k}" for k in ("hash", "zset", "list") for op in ("DUMP", "RESTORE")]:
        m = {}
        for server in ("redis", "ruvio"):
            xs = [s for s in samples if s["row"] == row and s["server"] == server]
            m[server] = {"server_us_per_call": common.median([s["server_us_per_call"] for s in xs]),
                         "calls_per_s": common.median([s["calls_per_s"] for s in xs])}
        medians[row] = m
        rows.append([row, f"{m['redis']['server_us_per_call']:.1f}",
                     f"{m['ruvio']['server_us_per_call']:.1f}",
                     f"{m['ruvio']['server_us_per_call'] / m['redis']['server_us_per_call']:.2f}",
                     f"{m['redis']['calls_per_s']:.0f}", f"{m['ruvio']['calls_per_s']:.0f}"])
    print(common.table(["row", "redis µs/call", "ruvio µs/call", "ruvio/redis", "redis calls/s",
                        "ruvio calls/s"], rows))
    others = [s["other_cpu"] for s in samples]
    busy = sum(1 for o in others if o > OTHER_CPU_LIMIT)
    if busy:
        print(f"WARNING: {busy} of {len(others)} tests ran while other processes used more than "
              f"{OTHER_CPU_LIMIT} CPU: the machine is shared, figures are noisy.")
    if not a.no_write:
        path = common.write_result("dump", {
            "command": " ".join(["bench/dump.py", *sys.argv[1:]]),
            "servers": {k: common.server_command(k) + " --enable-debug-command yes"
                        for k in ("redis", "ruvio")},
            "method": "one connection, pipeline 16, the same request bytes to both; "
                      "server_us_per_call = delta of the summed schedstat on-CPU ns of the "
                      "measured process's threads / calls; median over rounds",
            "calls": a.calls, "rounds": a.rounds, "elements": N,
            "tests_with_foreign_cpu_load": busy, "max_other_cpu": max(others),
            "medians": medians, "samples": samples})
        print(path)


if __name__ == "__main__":
    main()
