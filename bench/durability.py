#!/usr/bin/python3
"""Durability benchmark (issue 4): write throughput of each durability profile next to
redis-server with its AOF, and the restart time of 1,000,000 keys.

Throughput: redis-benchmark, 50 clients, pipeline 16, SET and INCR (-t set,incr, keys from
a 100,000 range, --csv), one worker each, server on CPU 1 and client on CPU 0. Servers:
Ruvio --durability memory / everysec / always, Redis --appendonly yes --appendfsync
everysec / always (both with --save ""). Rounds alternate the server order; the median is
kept. The data dir of every durable server is on the repository's file system (/tmp here:
the same ext4 as /).

Restart: load 500,000 keys (MSET, 16-byte values), take a snapshot (Ruvio BGSAVE; Redis
BGREWRITEAOF, which writes its RDB-preamble base), load 500,000 more keys (WAL / AOF
increment), stop gracefully, start again on the same dir and time it until the server
answers (the harness sees its ready line, then the port); the server's own load figure is
recorded too (Ruvio: "recovered N keys in X s"; Redis: "DB loaded from append only file").

    /usr/bin/python3 bench/durability.py [--rounds R] [--requests N] [--no-write]
"""

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

import common
from common import harness

CLIENTS, PIPELINE, KEYSPACE = 50, 16, 100_000
PROFILES = {
    "ruvio-memory": ("ruvio", ["--durability", "memory"]),
    "ruvio-everysec": ("ruvio", ["--durability", "everysec"]),
    "ruvio-always": ("ruvio", ["--durability", "always"]),
    "redis-everysec": ("redis", ["--appendonly", "yes", "--appendfsync", "everysec"]),
    "redis-always": ("redis", ["--appendonly", "yes", "--appendfsync", "always"]),
}


def start(kind, extra, data_dir):
    if kind == "ruvio":
        srv = harness.Server(kind="ruvio", args=["--workers", "1", "--cpus", common.SERVER_CPU,
                                                 "--alloc-trace", "off", "--dir", data_dir,
                                                 *extra])
        for _ in range(100):
            if srv.worker_pids():
                return srv, srv.worker_pids()[0]
            time.sleep(0.05)
        raise RuntimeError("no worker")
    srv = harness.Server(kind="redis", args=["--dir", data_dir, *extra])
    subprocess.run(["taskset", "-a", "-p", "-c", common.SERVER_CPU, str(srv.pid)], check=True,
                   stdout=subprocess.DEVNULL)
    return srv, srv.pid


def bench(port, requests, test):
    cmd = ["taskset", "-c", common.CLIENT_CPU, "redis-benchmark", "-p", str(port), "-c",
           str(CLIENTS), "-P", str(PIPELINE), "-n", str(requests), "-r", str(KEYSPACE), "--csv",
           "-t", test]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = common.benchmark_rows(out)
    return float(rows[0][1])


def throughput(rounds, requests):
    samples = {p: {"SET": [], "INCR": []} for p in PROFILES}
    for rnd in range(rounds):
        order = list(PROFILES) if rnd % 2 == 0 else list(reversed(PROFILES))
        for name in order:
            kind, extra = PROFILES[name]
            with tempfile.TemporaryDirectory(prefix="ruvio-bench-") as d:
                srv, _ = start(kind, extra, d)
                try:
                    for test in ("SET", "INCR"):
                        rps = bench(srv.port, requests, test.lower())
                        samples[name][test].append(rps)
                        print(f"  round {rnd + 1} {name:15} {test:5} {rps:12,.0f} req/s",
                              file=sys.stderr, flush=True)
                finally:
                    srv.stop()
    return samples


def load(port, first, count):
    """MSETs of 1000 keys on one pipelined connection."""
    s = socket.create_connection(("127.0.0.1", port))
    value = b"v" * 16
    pending = 0
    buf = b""
    for start in range(first, first + count, 1000):
        n = min(1000, first + count - start)
        parts = [b"*%d\r\n$4\r\nMSET\r\n" % (1 + 2 * n)]
        for i in range(start, start + n):
            k = b"key:%012d" % i
            parts.append(b"$%d\r\n%s\r\n$16\r\n%s\r\n" % (len(k), k, value))
        s.sendall(b"".join(parts))
        pending += 1
        if pending >= 8:
            while buf.count(b"\r\n") < pending:
                buf += s.recv(65536)
            buf, pending = b"", 0
    while buf.count(b"\r\n") < pending:
        buf += s.recv(65536)
    s.close()


def info_field(port, field):
    out = subprocess.run(["redis-cli", "-p", str(port), "info", "persistence"],
                         capture_output=True, text=True).stdout
    m = re.search(rf"^{field}:(\S+)", out, re.M)
    return m.group(1) if m else None


def restart(kind):
    with tempfile.TemporaryDirectory(prefix="ruvio-bench-restart-") as d:
        extra = (["--durability", "everysec"] if kind == "ruvio"
                 else ["--appendonly", "yes", "--appendfsync", "everysec"])
        srv, _ = start(kind, extra, d)
        load(srv.port, 0, 500_000)
        cmd = "BGSAVE" if kind == "ruvio" else "BGREWRITEAOF"
        subprocess.run(["redis-cli", "-p", str(srv.port), cmd], check=True, capture_output=True)
        busy = "rdb_bgsave_in_progress" if kind == "ruvio" else "aof_rewrite_in_progress"
        time.sleep(0.2)
        while info_field(srv.port, busy) != "0":
            time.sleep(0.05)
        load(srv.port, 500_000, 500_000)
        srv.stop()
        t0 = time.monotonic()
        srv, _ = start(kind, extra, d)
        wall = time.monotonic() - t0
        keys = int(subprocess.run(["redis-cli", "-p", str(srv.port), "dbsize"],
                                  capture_output=True, text=True).stdout)
        log = srv.output()
        srv.stop()
        if kind == "ruvio":
            m = re.search(r"recovered (\d+) keys in ([0-9.]+) s", log)
            own = float(m.group(2)) if m else None
        else:
            own = sum(float(x) for x in
                      re.findall(r"DB loaded from (?:base|incr) file \S+: ([0-9.]+) seconds", log))
            own = own or None
        files = sorted(os.listdir(os.path.join(d, "worker-0") if kind == "ruvio" else
                                  os.path.join(d, "appendonlydir")))
        print(f"  restart {kind}: {keys} keys, ready after {wall:.3f} s (own figure {own})",
              file=sys.stderr, flush=True)
        return {"keys": keys, "ready_s": round(wall, 3), "server_load_s": own, "files": files}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    common.need("redis-benchmark")
    samples = throughput(args.rounds, args.requests)
    med = {p: {t: common.median(v) for t, v in tests.items()} for p, tests in samples.items()}
    rows = []
    for p in PROFILES:
        row = [p]
        for t in ("SET", "INCR"):
            rps = med[p][t]
            row += [f"{rps:,.0f}", f"{rps / med['ruvio-memory'][t]:.2f}"]
        rows.append(row)
    print(common.table(["server", "SET req/s", "vs ruvio memory", "INCR req/s",
                        "vs ruvio memory"], rows))
    ratios = {}
    for t in ("SET", "INCR"):
        ratios[t] = {
            "everysec_vs_memory": round(med["ruvio-everysec"][t] / med["ruvio-memory"][t], 3),
            "everysec_vs_redis_everysec":
                round(med["ruvio-everysec"][t] / med["redis-everysec"][t], 3),
            "always_vs_redis_always": round(med["ruvio-always"][t] / med["redis-always"][t], 3),
        }
    print(ratios)
    rest = {"ruvio": restart("ruvio"), "redis": restart("redis")}
    print(common.table(["server", "keys", "ready after (s)", "own load figure (s)"],
                       [[k, v["keys"], v["ready_s"], v["server_load_s"]] for k, v in rest.items()]))
    if not args.no_write:
        path = common.write_result("durability", {
            "method": __doc__.strip(),
            "command": " ".join(["/usr/bin/python3", "bench/durability.py", *sys.argv[1:]]),
            "client": f"taskset -c {common.CLIENT_CPU} redis-benchmark -c {CLIENTS} "
                      f"-P {PIPELINE} -n {args.requests} -r {KEYSPACE} --csv -t set|incr",
            "servers": {p: {"kind": k, "extra_args": e} for p, (k, e) in PROFILES.items()},
            "throughput_samples": samples, "throughput_median": med, "ratios": ratios,
            "restart_1m_keys": rest})
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
