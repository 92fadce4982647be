#!/usr/bin/python3
"""Memory of lists, Ruvio against Debian's redis-server 7.0.15 in the same run (the list rows
of the collections issue), measured as bench/memory.py does: a fresh server per data set and
server, idle VmRSS of the measured process (Ruvio: its worker), the load (every reply
checked), DBSIZE checked, one second of rest, loaded VmRSS; KiB above idle and the ratio.

Data sets:
  lists20   20,000 lists l:<i> of 20 elements "member:<j>" (j = 0..19), one RPUSH each
  lists1    100,000 one-element lists l:<i> holding "member:<i>"
  list1m    one list of 1,000,000 elements "member:<j>", list-compress-depth 0 (plain nodes)
  list1m_d1 the same with list-compress-depth 1 (CONFIG SET on both servers before the load:
            every node but the two end ones LZF-compressed)

Usage: bench/collections_list.py [--sets lists20,lists1] [--servers redis,ruvio] [--no-write]
                                 [--out list-memory]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import memory  # noqa: E402


def lists20(port):
    n = 20_000
    members = [b"member:%d" % j for j in range(20)]
    memory.load_pipelined(port, n, lambda i: memory._resp(b"RPUSH", b"l:%d" % i, *members),
                          lambda i: b":20\r\n")
    return n


def lists1(port):
    n = 100_000
    memory.load_pipelined(port, n, lambda i: memory._resp(b"RPUSH", b"l:%d" % i, b"member:%d" % i),
                          lambda i: b":1\r\n")
    return n


def _one_list(port, depth):
    memory.load_pipelined(
        port, 1, lambda i: memory._resp(b"CONFIG", b"SET", b"list-compress-depth", b"%d" % depth),
        lambda i: b"+OK\r\n")
    per = 1000  # elements per RPUSH: 1,000 commands
    memory.load_pipelined(
        port, 1000,
        lambda i: memory._resp(b"RPUSH", b"biglist", *[b"member:%d" % (i * per + j)
                                                        for j in range(per)]),
        lambda i: b":%d\r\n" % ((i + 1) * per))
    return 1


def list1m(port):
    return _one_list(port, 0)


def list1m_d1(port):
    return _one_list(port, 1)


SETS = {
    "lists20": (lists20, "RPUSH l:<i> member:0 .. member:19 for i in 0..19999, pipeline 200; "
                         "every reply checked to be :20, DBSIZE = 20000"),
    "lists1": (lists1, "RPUSH l:<i> member:<i> for i in 0..99999, pipeline 200; every reply "
                       "checked to be :1, DBSIZE = 100000"),
    "list1m": (list1m, "CONFIG SET list-compress-depth 0; RPUSH biglist of 1,000 elements "
                       "member:<j> 1,000 times (j = 0..999999), pipeline 200; every reply "
                       "checked, DBSIZE = 1"),
    "list1m_d1": (list1m_d1, "CONFIG SET list-compress-depth 1; RPUSH biglist of 1,000 "
                             "elements member:<j> 1,000 times (j = 0..999999), pipeline 200; "
                             "every reply checked, DBSIZE = 1"),
}


def measure(kind, name):
    fn = SETS[name][0]
    srv, pid = common.start(kind)
    try:
        time.sleep(0.5)
        idle = common.vmrss_kib(pid)
        expected = fn(srv.port)
        n = memory.dbsize(srv.port)
        if n != expected:
            raise RuntimeError(f"{kind} {name}: DBSIZE {n}, expected {expected}")
        time.sleep(1.0)
        loaded = common.vmrss_kib(pid)
        delta = loaded - idle
        return {"pid_role": "worker" if kind == "ruvio" else "redis-server",
                "idle_vmrss_kib": idle, "loaded_vmrss_kib": loaded, "delta_kib": delta,
                "dbsize": n, "bytes_per_key": round(delta * 1024 / n, 1)}
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="lists20,lists1")
    ap.add_argument("--servers", default="redis,ruvio")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--out", default="list-memory", help="result name (bench/results/<date>-<out>.json)")
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
            entry["ratio_ruvio_over_redis"] = round(
                entry["ruvio"]["delta_kib"] / entry["redis"]["delta_kib"], 3)
        results[name] = entry
    rows = []
    for name, e in results.items():
        for kind in servers:
            m = e[kind]
            rows.append([name, kind, m["idle_vmrss_kib"], m["loaded_vmrss_kib"], m["delta_kib"],
                         m["dbsize"], m["bytes_per_key"],
                         e.get("ratio_ruvio_over_redis", "") if kind == "ruvio" else ""])
    print(common.table(["data set", "server", "idle KiB", "loaded KiB", "delta KiB", "DBSIZE",
                        "bytes/key", "Ruvio/Redis"], rows))
    if not a.no_write:
        path = common.write_result(a.out, {
            "servers": {k: common.server_command(k) for k in servers},
            "command": "bench/collections_list.py --sets " + a.sets + " --out " + a.out,
            "rss_method": "VmRSS from /proc/<pid>/status: 0.5 s after start (idle), 1 s after "
                          "the load and the DBSIZE check (loaded); delta = loaded - idle; fresh "
                          "server per data set and server",
            "sets": results})
        print(f"wrote {os.path.relpath(path, common.ROOT)}")


if __name__ == "__main__":
    main()
