#!/usr/bin/python3
"""Set memory, Ruvio against Debian's redis-server 7.0.15 in the same run (bench/memory.py's
method): per data set and server a fresh server, idle VmRSS of the measured process, the
load over one raw socket (pipeline 200, every reply checked), DBSIZE and SCARD checked, one
second of rest, loaded VmRSS; the figure is the RSS above idle in KiB and Ruvio/Redis.

Data sets (the collections issue's set rows):
  sets4     50,000 sets of 4 members: SADD set:<i> member:0 member:1 member:2 member:3
            (Ruvio: listpack, as Redis 7.2; Redis 7.0: hashtable)
  intsets4  50,000 sets of 4 integers: SADD iset:<i> <4i> <4i+1> <4i+2> <4i+3>   (intset)
  set1m     one set of 1,000,000 members: SADD big member:<i> ...  (hashtable), 200 a command

Usage: bench/collections_set.py [--sets sets4,intsets4,set1m] [--servers redis,ruvio]
                                [--no-write]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from memory import _call, _resp, dbsize, load_pipelined  # noqa: E402

BIG_BATCH = 200


def load_sets4(port):
    load_pipelined(port, 50_000,
                   lambda i: _resp(b"SADD", b"set:%d" % i,
                                   *[b"member:%d" % j for j in range(4)]),
                   lambda i: b":4\r\n")
    return 50_000, b"set:7", 4


def load_intsets4(port):
    load_pipelined(port, 50_000,
                   lambda i: _resp(b"SADD", b"iset:%d" % i,
                                   *[b"%d" % (4 * i + j) for j in range(4)]),
                   lambda i: b":4\r\n")
    return 50_000, b"iset:7", 4


def load_set1m(port):
    n = 1_000_000 // BIG_BATCH
    load_pipelined(port, n,
                   lambda i: _resp(b"SADD", b"big",
                                   *[b"member:%d" % (i * BIG_BATCH + j) for j in range(BIG_BATCH)]),
                   lambda i: b":%d\r\n" % BIG_BATCH)
    return 1, b"big", 1_000_000


SETS = {
    "sets4": (load_sets4, "50,000 x SADD set:<i> member:0 member:1 member:2 member:3"),
    "intsets4": (load_intsets4, "50,000 x SADD iset:<i> <4i> <4i+1> <4i+2> <4i+3>"),
    "set1m": (load_set1m, "5,000 x SADD big member:<200i> .. member:<200i+199>"),
}


def measure(kind, name):
    srv, pid = common.start(kind)
    try:
        time.sleep(0.5)
        idle = common.vmrss_kib(pid)
        t0 = time.monotonic()
        keys, probe, card = SETS[name][0](srv.port)
        load_s = time.monotonic() - t0
        n = dbsize(srv.port)
        if n != keys:
            raise RuntimeError(f"{kind} {name}: DBSIZE {n}, expected {keys}")
        got = _call(srv.port, b"SCARD", probe)
        if got != b":%d\r\n" % card:
            raise RuntimeError(f"{kind} {name}: SCARD {probe!r} replied {got!r}")
        enc = _call(srv.port, b"OBJECT", b"ENCODING", probe).split(b"\r\n")[1].decode()
        time.sleep(1.0)
        loaded = common.vmrss_kib(pid)
        return {"pid_role": "worker" if kind == "ruvio" else "redis-server",
                "cpus_allowed": common.cpus_allowed(pid), "idle_vmrss_kib": idle,
                "loaded_vmrss_kib": loaded, "delta_kib": loaded - idle, "dbsize": n,
                "encoding": enc, "load_seconds": round(load_s, 2)}
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="sets4,intsets4,set1m")
    ap.add_argument("--servers", default="redis,ruvio")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    servers = a.servers.split(",")
    os.sched_setaffinity(0, {int(common.CLIENT_CPU)})
    results = {}
    for name in a.sets.split(","):
        entry = {"command": SETS[name][1]}
        for kind in servers:
            print(f"{name}: {kind} ...", file=sys.stderr, flush=True)
            entry[kind] = measure(kind, name)
        if "redis" in entry and "ruvio" in entry and entry["redis"]["delta_kib"] > 0:
            entry["ratio_ruvio_over_redis"] = round(
                entry["ruvio"]["delta_kib"] / entry["redis"]["delta_kib"], 3)
        results[name] = entry
    rows = []
    for name, e in results.items():
        for kind in servers:
            m = e[kind]
            rows.append([name, kind, m["encoding"], m["idle_vmrss_kib"],
                         m["loaded_vmrss_kib"], m["delta_kib"],
                         e.get("ratio_ruvio_over_redis") if kind == "ruvio" else ""])
    print(common.table(["data set", "server", "encoding", "idle KiB", "loaded KiB",
                        "delta KiB", "Ruvio/Redis"], rows))
    if not a.no_write:
        path = common.write_result("set-memory", {
            "servers": {k: common.server_command(k) for k in servers},
            "pipeline": 200,
            "rss_method": "VmRSS from /proc/<pid>/status: 0.5 s after start (idle), and 1 s "
                          "after the load and the DBSIZE/SCARD checks (loaded); delta = "
                          "loaded - idle; fresh server per data set and server",
            "sets": results})
        print(f"wrote {os.path.relpath(path, common.ROOT)}")


if __name__ == "__main__":
    main()
