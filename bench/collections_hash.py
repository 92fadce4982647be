#!/usr/bin/python3
"""Hash memory, Ruvio against Debian's redis-server 7.0.15 in the same run (the issue's hash
data sets), measured as bench/memory.py does: a fresh server per data set and server, idle
VmRSS of the measured process (Ruvio's worker, redis-server), the load (every reply
checked), HLEN/DBSIZE checked, one second of rest, loaded VmRSS; KiB above idle and the ratio.

Data sets:
  hashes3       50,000 hashes h:<i> of 3 fields field:1..3 = value:1..3 (listpack)
  hash1m        one hash of 1,000,000 fields f:<i> = v:<i> (hashtable)
  fields_ttl    100,000 fields of one hash, each with a TTL (HPEXPIRE, one per field):
                Ruvio only, redis-server 7.0 has no field TTLs
  fields_nottl  the same 100,000 fields without TTL, both servers (the TTL row's baseline)

Usage: bench/collections_hash.py [--sets hashes3,hash1m,fields_ttl,fields_nottl]
                                 [--servers redis,ruvio] [--no-write] [--out hash-memory]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from memory import _call, _resp, dbsize, load_pipelined  # noqa: E402


def hlen(port, key):
    reply = _call(port, b"HLEN", key)
    return int(reply[1:-2])


def set_hashes3(port):
    load_pipelined(port, 50_000,
                   lambda i: _resp(b"HSET", b"h:%d" % i, b"field:1", b"value:1", b"field:2",
                                   b"value:2", b"field:3", b"value:3"),
                   lambda i: b":3\r\n")
    return {"dbsize": dbsize(port), "fields": 150_000}


def set_hash1m(port):
    load_pipelined(port, 1_000_000, lambda i: _resp(b"HSET", b"big", b"f:%d" % i, b"v:%d" % i),
                   lambda i: b":1\r\n")
    return {"dbsize": dbsize(port), "fields": hlen(port, b"big")}


def set_fields(port, ttl):
    load_pipelined(port, 100_000, lambda i: _resp(b"HSET", b"t", b"f:%d" % i, b"v:%d" % i),
                   lambda i: b":1\r\n")
    if ttl:
        load_pipelined(port, 100_000,
                       lambda i: _resp(b"HPEXPIRE", b"t", b"86400000", b"FIELDS", b"1",
                                       b"f:%d" % i),
                       lambda i: b"*1\r\n:1\r\n")
    return {"dbsize": dbsize(port), "fields": hlen(port, b"t")}


SETS = {
    "hashes3": (set_hashes3, ("redis", "ruvio"),
                "HSET h:<i> field:1 value:1 field:2 value:2 field:3 value:3, i in 0..49999"),
    "hash1m": (set_hash1m, ("redis", "ruvio"), "HSET big f:<i> v:<i>, i in 0..999999"),
    "fields_ttl": (lambda p: set_fields(p, True), ("ruvio",),
                   "HSET t f:<i> v:<i>, then HPEXPIRE t 86400000 FIELDS 1 f:<i>, i in 0..99999"),
    "fields_nottl": (lambda p: set_fields(p, False), ("redis", "ruvio"),
                     "HSET t f:<i> v:<i>, i in 0..99999"),
}


def measure(kind, name):
    fn = SETS[name][0]
    srv, pid = common.start(kind)
    try:
        time.sleep(0.5)
        idle = common.vmrss_kib(pid)
        t0 = time.monotonic()
        counts = fn(srv.port)
        load_s = time.monotonic() - t0
        time.sleep(1.0)
        loaded = common.vmrss_kib(pid)
        delta = loaded - idle
        return {"pid_role": "worker" if kind == "ruvio" else "redis-server",
                "cpus_allowed": common.cpus_allowed(pid), "idle_vmrss_kib": idle,
                "loaded_vmrss_kib": loaded, "delta_kib": delta, **counts,
                "bytes_per_field": round(delta * 1024 / counts["fields"], 1),
                "load_seconds": round(load_s, 2)}
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="hashes3,hash1m,fields_ttl,fields_nottl")
    ap.add_argument("--servers", default="redis,ruvio")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--out", default="hash-memory",
                    help="result name (bench/results/<date>-<out>.json)")
    a = ap.parse_args()
    servers = a.servers.split(",")
    os.sched_setaffinity(0, {int(common.CLIENT_CPU)})
    results = {}
    for name in a.sets.split(","):
        entry = {"method": SETS[name][2]}
        for kind in servers:
            if kind not in SETS[name][1]:
                continue
            print(f"{name}: {kind} ...", file=sys.stderr, flush=True)
            entry[kind] = measure(kind, name)
        if "redis" in entry and "ruvio" in entry:
            r, v = entry["redis"]["delta_kib"], entry["ruvio"]["delta_kib"]
            entry["ratio_ruvio_over_redis"] = round(v / r, 3) if r else None
        results[name] = entry
    headers = ["data set", "server", "idle KiB", "loaded KiB", "delta KiB", "fields",
               "bytes/field", "Ruvio/Redis"]
    rows = []
    for name, e in results.items():
        for kind in servers:
            if kind not in e:
                continue
            m = e[kind]
            rows.append([name, kind, m["idle_vmrss_kib"], m["loaded_vmrss_kib"], m["delta_kib"],
                         m["fields"], m["bytes_per_field"],
                         e.get("ratio_ruvio_over_redis", "") if kind == "ruvio" else ""])
    print(common.table(headers, rows))
    if not a.no_write:
        path = common.write_result(a.out, {
            "servers": {k: common.server_command(k) for k in servers},
            "command": "bench/collections_hash.py --sets " + a.sets + " --out " + a.out,
            "rss_method": "VmRSS from /proc/<pid>/status: 0.5 s after start (idle), 1 s after "
                          "the load (loaded); delta = loaded - idle; fresh server per data set",
            "data_sets": results})
        print(f"wrote {os.path.relpath(path, common.ROOT)}")


if __name__ == "__main__":
    main()
