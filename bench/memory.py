#!/usr/bin/python3
"""Memory per key, Ruvio against Debian's redis-server in the same run.

For each scenario and each server: a fresh server (Redis `--save "" --appendonly no`,
Ruvio `--durability memory --workers 1 --cpus 1`), the idle VmRSS of the measured process
(Ruvio: its worker; Redis: redis-server) from /proc/<pid>/status, the load, DBSIZE checked,
one second of rest, the loaded VmRSS; bytes/key = (loaded - idle) / DBSIZE.

Scenarios:
  strings64  SET k:0 ... k:999999, 64-byte values, pipeline 200 over a raw socket
  valkey16   redis-benchmark -t set -n 1000000 -r 1000000 -d 16 -p PORT
  incr       INCR c:0 ... c:999999 (one million distinct counters), pipeline 200

Usage: bench/memory.py [--scenarios strings64,valkey16,incr] [--servers redis,ruvio]
                       [--keys 1000000] [--no-write]
"""

import argparse
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

PIPELINE = 200


def _resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def _recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("server closed the connection")
        buf += chunk
    return bytes(buf)


def _call(port, *args):
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(_resp(*args))
        data = b""
        while not data.endswith(b"\r\n"):
            data += s.recv(4096)
        return data


def dbsize(port):
    reply = _call(port, b"DBSIZE")
    if not reply.startswith(b":"):
        raise RuntimeError(f"DBSIZE replied {reply!r}")
    return int(reply[1:-2])


def load_pipelined(port, n, make, expect):
    """Sends make(i) for i in 0..n-1 in batches of PIPELINE; every reply must be `expect(i)`."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for start in range(0, n, PIPELINE):
            idx = range(start, min(n, start + PIPELINE))
            s.sendall(b"".join(make(i) for i in idx))
            want = b"".join(expect(i) for i in idx)
            got = _recv_exact(s, len(want))
            if got != want:
                raise RuntimeError(f"unexpected reply in batch at {start}: {got[:200]!r}")


def value64(i):
    return (b"v%d:" % i).ljust(64, b"x")


def scenario_strings64(port, keys):
    load_pipelined(port, keys, lambda i: _resp(b"SET", b"k:%d" % i, value64(i)),
                   lambda i: b"+OK\r\n")
    return keys


def scenario_incr(port, keys):
    load_pipelined(port, keys, lambda i: _resp(b"INCR", b"c:%d" % i), lambda i: b":1\r\n")
    return keys


def valkey16_command(port, keys):
    return ["taskset", "-c", common.CLIENT_CPU, "redis-benchmark", "-t", "set", "-n", str(keys),
            "-r", str(keys), "-d", "16", "-p", str(port), "-q"]


def scenario_valkey16(port, keys):
    subprocess.run(valkey16_command(port, keys), check=True, stdout=subprocess.DEVNULL)
    return None  # random keys: the count is whatever DBSIZE says


SCENARIOS = {
    "strings64": (scenario_strings64,
                  "SET k:<i> <64-byte value> for i in 0..{last}, pipeline 200, one raw-socket "
                  "connection from this script; every reply checked to be +OK, DBSIZE = {n}"),
    "valkey16": (scenario_valkey16,
                 "redis-benchmark with random keys; DBSIZE (not {n}) is the divisor"),
    "incr": (scenario_incr,
             "INCR c:<i> for i in 0..{last}, pipeline 200, one raw-socket connection from "
             "this script; every reply checked to be :1, DBSIZE = {n}"),
}
COMMANDS = {
    "strings64": "SET k:<i> <(b'v%d:' % i).ljust(64, b'x')>  (RESP, batches of 200)",
    "incr": "INCR c:<i>  (RESP, batches of 200)",
}


def measure_rss(kind, name, load, check=None):
    """What a data set costs on a fresh `kind` server (common.start), as every memory
    benchmark measures it: VmRSS 0.5 s after start (idle) and 1 s after load(port) and the
    DBSIZE check (loaded). load returns the DBSIZE it expects (None: not checked);
    check(port), when given, runs after the DBSIZE check (raising on a wrong reply) and
    returns fields to add to the result."""
    srv, pid = common.start(kind)
    try:
        time.sleep(0.5)
        idle = common.vmrss_kib(pid)
        t0 = time.monotonic()
        expected = load(srv.port)
        load_s = time.monotonic() - t0
        n = dbsize(srv.port)
        if expected is not None and n != expected:
            raise RuntimeError(f"{kind} {name}: DBSIZE {n}, expected {expected}")
        extra = check(srv.port) if check else {}
        time.sleep(1.0)
        loaded = common.vmrss_kib(pid)
        delta = loaded - idle
        return {"pid_role": "worker" if kind == "ruvio" else "redis-server",
                "cpus_allowed": common.cpus_allowed(pid), "idle_vmrss_kib": idle,
                "loaded_vmrss_kib": loaded, "delta_kib": delta, "dbsize": n,
                "bytes_per_key": round(delta * 1024 / n, 1) if n else None,
                "load_seconds": round(load_s, 2), **extra}
    finally:
        srv.stop()


def measure(kind, name, keys):
    return measure_rss(kind, name, lambda port: SCENARIOS[name][0](port, keys))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenarios", default="strings64,valkey16,incr")
    ap.add_argument("--servers", default=None,
                    help="comma list of redis,ruvio (default: both; redis only if Ruvio "
                         "is not built)")
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--no-write", action="store_true", help="print only, no results file")
    a = ap.parse_args()
    common.need("redis-benchmark")
    servers = a.servers.split(",") if a.servers else (
        ["redis", "ruvio"] if common.ruvio_available() else ["redis"])
    if "ruvio" not in servers:
        print("note: Ruvio not measured (not built or not asked for)", file=sys.stderr)
    os.sched_setaffinity(0, {int(common.CLIENT_CPU)})

    results = {}
    for name in a.scenarios.split(","):
        entry = {"method": SCENARIOS[name][1].format(n=a.keys, last=a.keys - 1),
                 "command": (" ".join(valkey16_command("PORT", a.keys)) if name == "valkey16"
                             else COMMANDS[name])}
        for kind in servers:
            print(f"{name}: {kind} ...", file=sys.stderr, flush=True)
            entry[kind] = measure(kind, name, a.keys)
        if "redis" in entry and "ruvio" in entry:
            r, v = entry["redis"]["bytes_per_key"], entry["ruvio"]["bytes_per_key"]
            entry["ratio_ruvio_over_redis"] = round(v / r, 3) if r else None
        results[name] = entry

    headers = ["scenario", "server", "idle KiB", "loaded KiB", "delta KiB", "DBSIZE",
               "bytes/key", "Ruvio/Redis"]
    rows = []
    for name, e in results.items():
        for kind in servers:
            m = e[kind]
            rows.append([name, kind, m["idle_vmrss_kib"], m["loaded_vmrss_kib"], m["delta_kib"],
                         m["dbsize"], m["bytes_per_key"],
                         e.get("ratio_ruvio_over_redis") if kind == "ruvio" else ""])
    print(common.table(headers, rows))
    if not a.no_write:
        path = common.write_result("memory", {
            "servers": {k: common.server_command(k) for k in servers},
            "keys": a.keys, "pipeline": PIPELINE,
            "rss_method": "VmRSS from /proc/<pid>/status: 0.5 s after start (idle), and 1 s "
                          "after the load and the DBSIZE check (loaded); delta = loaded - idle; "
                          "Ruvio: the worker process, Redis: the redis-server process; fresh "
                          "server per scenario and server",
            "scenarios": results})
        print(f"wrote {os.path.relpath(path, common.ROOT)}")


if __name__ == "__main__":
    main()
