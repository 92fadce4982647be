#!/usr/bin/python3
"""Sorted-set memory, Ruvio against Debian's redis-server in the same run (the zset rows of
the collections issue), measured as bench/memory.py does: a fresh server per data set and
server, VmRSS of the measured process (Ruvio: its worker) before and 1 s after the load,
DBSIZE checked; the figure is the RSS above idle in KiB and the ratio Ruvio / Redis.

Data sets:
  zset3     50,000 sorted sets of 3 members: ZADD z:<i> 1 member:1 2 member:2 3 member:3
  zset1m    one sorted set of 1,000,000 members: ZADD big <i> member:<i>, 100 pairs a command

Usage: bench/collections_zset.py [--sets zset3,zset1m] [--servers redis,ruvio] [--no-write]
Writes bench/results/<date>-zset-memory.json.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from memory import _resp, dbsize, load_pipelined  # noqa: E402

ZSET3_KEYS = 50_000
BIG_MEMBERS = 1_000_000
BIG_BATCH = 100


def load_zset3(port):
    load_pipelined(port, ZSET3_KEYS,
                   lambda i: _resp(b"ZADD", b"z:%d" % i, b"1", b"member:1", b"2", b"member:2",
                                   b"3", b"member:3"),
                   lambda i: b":3\r\n")
    return ZSET3_KEYS


def load_zset1m(port):
    def make(j):
        args = [b"ZADD", b"big"]
        for i in range(j * BIG_BATCH, (j + 1) * BIG_BATCH):
            args += [b"%d" % i, b"member:%d" % i]
        return _resp(*args)

    load_pipelined(port, BIG_MEMBERS // BIG_BATCH, make, lambda j: b":%d\r\n" % BIG_BATCH)
    return 1


SETS = {
    "zset3": (load_zset3, "ZADD z:<i> 1 member:1 2 member:2 3 member:3 for i < 50,000, "
                          "pipeline 200; every reply :3; DBSIZE 50,000"),
    "zset1m": (load_zset1m, "ZADD big <i> member:<i> ... (100 pairs a command) for "
                            "i < 1,000,000, pipeline 200; every reply :100; DBSIZE 1"),
}


def measure(kind, name):
    srv, pid = common.start(kind)
    try:
        time.sleep(0.5)
        idle = common.vmrss_kib(pid)
        t0 = time.monotonic()
        expected = SETS[name][0](srv.port)
        load_s = time.monotonic() - t0
        n = dbsize(srv.port)
        if n != expected:
            raise RuntimeError(f"{kind} {name}: DBSIZE {n}, expected {expected}")
        time.sleep(1.0)
        loaded = common.vmrss_kib(pid)
        return {"pid_role": "worker" if kind == "ruvio" else "redis-server",
                "idle_vmrss_kib": idle, "loaded_vmrss_kib": loaded,
                "delta_kib": loaded - idle, "dbsize": n, "load_seconds": round(load_s, 2)}
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="zset3,zset1m")
    ap.add_argument("--servers", default="redis,ruvio")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    servers = a.servers.split(",")
    os.sched_setaffinity(0, {int(common.CLIENT_CPU)})
    results = {}
    for name in a.sets.split(","):
        entry = {"method": SETS[name][1]}
        for kind in servers:
            print(f"{name}: {kind} ...", file=sys.stderr, flush=True)
            entry[kind] = measure(kind, name)
        if "redis" in entry and "ruvio" in entry:
            r, v = entry["redis"]["delta_kib"], entry["ruvio"]["delta_kib"]
            entry["ratio_ruvio_over_redis"] = round(v / r, 3) if r else None
        results[name] = entry
    rows = []
    for name, e in results.items():
        for kind in servers:
            m = e[kind]
            rows.append([name, kind, m["idle_vmrss_kib"], m["loaded_vmrss_kib"], m["delta_kib"],
                         e.get("ratio_ruvio_over_redis", "") if kind == "ruvio" else ""])
    print(common.table(["data set", "server", "idle KiB", "loaded KiB", "above idle KiB",
                        "Ruvio/Redis"], rows))
    if not a.no_write:
        path = common.write_result("zset-memory", {
            "servers": {k: common.server_command(k) for k in servers},
            "command": "bench/collections_zset.py " + " ".join(sys.argv[1:]),
            "rss_method": "VmRSS from /proc/<pid>/status 0.5 s after start (idle) and 1 s after "
                          "the load and the DBSIZE check (loaded); Ruvio: the worker process",
            "sets": results})
        print(f"wrote {os.path.relpath(path, common.ROOT)}")


if __name__ == "__main__":
    main()
