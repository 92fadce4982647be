#!/usr/bin/python3
"""Who pays for the wake-ups: server and client CPU per request, side by side.

The rows that miss their CPU targets (PFCOUNT cached at pipeline 16, the evicting SET at
pipeline 1) are rows where the single redis-benchmark thread, not the server, is the
bottleneck. This script measures what collections_throughput.py measures (server on-CPU µs per
request from schedstat, req/s) and beside it:

  busy            server on-CPU time / wall time
  client µs/req   redis-benchmark's own user+system CPU per request (getrusage of the child)
  epoll_wait, ctx per request, on the server (perf stat tracepoints / software counter)
  client_wake %   the share of redis-benchmark's samples inside sock_def_readable (perf record
                  -g, inclusive, in a second pass of a fifth of the requests: perf slows the
                  client): the client's send() delivering to the server's socket and waking
                  the server's thread when it sleeps in epoll_wait

Rows (all 50 clients; pipeline 16 unless said):
  PING              nothing but the shared read/parse/reply path
  GET (missing)     a key lookup that misses
  PFCOUNT (cached)  bits.py's row: 1,000 sparse HLLs of 1,000, the cache valid
  SET (pipeline 1)  `-t set -r 10000000 -d 100`, no limit: eviction.py's row without eviction

Fresh server per round and kind, interleaved rounds, medians. Writes
bench/results/<date>-wakeups.json. Usage: bench/wakeups.py [--rounds N] [--requests N]
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bits  # noqa: E402
import collections_throughput as ct  # noqa: E402
import common  # noqa: E402

ROWS = [
    ("PING", None, ["-P", "16", "PING"]),
    ("GET (missing)", None, ["-P", "16", "-r", "1000", "GET", "nokey:__rand_int__"]),
    ("PFCOUNT (cached)", bits.hlls, ["-P", "16", "-r", "1000", "PFCOUNT", "hll:__rand_int__"]),
    ("SET (pipeline 1)", None, ["-r", "10000000", "-d", "100", "-t", "set"]),
]
EVENTS = "syscalls:sys_enter_epoll_wait,context-switches"


def wake_share(data):
    """Inclusive share (%) of sock_def_readable in a perf record -g file."""
    rep = subprocess.run(["perf", "report", "-i", data, "--children", "--sort", "sym", "--stdio"],
                         capture_output=True, text=True).stdout
    for line in rep.splitlines():
        if line.rstrip().endswith("] sock_def_readable"):
            return float(line.split()[0].rstrip("%"))
    return 0.0


def benchmark(port, requests, args, record=None):
    cmd = ["taskset", "-c", common.CLIENT_CPU, "redis-benchmark", "-p", str(port), "-c",
           str(ct.CLIENTS), "-n", str(requests), "-q", *args]
    if record:  # perf slows the client several-fold: a separate, shorter pass
        cmd = ["perf", "record", "-q", "-g", "-F", "999", "-o", record, *cmd]
    bench = subprocess.run(cmd, capture_output=True, text=True)
    if bench.returncode != 0 or "error" in bench.stdout.lower():
        raise RuntimeError(f"redis-benchmark failed: {bench.stdout}\n{bench.stderr}")


def run_row(port, pid, requests, args, tmp):
    stat = subprocess.Popen(["perf", "stat", "-x,", "-e", EVENTS, "-p", str(pid)],
                            stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)  # perf attached before the load starts
    ns0, cli0, t0 = common.server_cpu_ns(pid), common.children_cpu_seconds(), time.monotonic()
    benchmark(port, requests, args)
    wall = time.monotonic() - t0
    ns, cli = common.server_cpu_ns(pid) - ns0, common.children_cpu_seconds() - cli0
    stat.send_signal(signal.SIGINT)
    counts = {name: round(n / requests, 4)
              for name, n in common.perf_stat_counts(stat.communicate()[1]).items()}
    data = os.path.join(tmp, "client.data")
    benchmark(port, requests // 5, args, record=data)
    return {"server_us_per_req": round(ns / 1e3 / requests, 4),
            "req_per_s": round(requests / wall),
            "busy": round(ns / 1e9 / wall, 3),
            "client_us_per_req": round(cli * 1e6 / requests, 4),
            "server_epoll_wait_per_req": counts.get("sys_enter_epoll_wait"),
            "server_ctx_switches_per_req": counts.get("context-switches"),
            "client_wake_pct": wake_share(data)}


def run_server(kind, requests):
    srv, pid = common.start(kind)
    out = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name, load, args in ROWS:
                ct.flush(srv.port)
                if load:
                    load(srv.port, requests)
                n = requests if "-P" in args else requests // 4
                out[name] = run_row(srv.port, pid, n, args, tmp)
                print(f"  {kind:5} {name:18} {out[name]}", file=sys.stderr, flush=True)
    finally:
        srv.stop()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    common.need("perf")
    rounds = []
    for r in range(a.rounds):
        rounds.append({kind: run_server(kind, a.requests) for kind in ("redis", "ruvio")})
    med = {kind: {name: {f: common.median([rd[kind][name][f] for rd in rounds])
                         for f in rounds[0][kind][name]} for name, _, _ in ROWS}
           for kind in ("redis", "ruvio")}
    lines = []
    for name, _, _ in ROWS:
        rd, rv = med["redis"][name], med["ruvio"][name]
        lines.append([name, rd["server_us_per_req"], rv["server_us_per_req"],
                      round(rv["server_us_per_req"] / rd["server_us_per_req"], 2),
                      rd["busy"], rv["busy"], rd["client_us_per_req"], rv["client_us_per_req"],
                      rd["server_ctx_switches_per_req"], rv["server_ctx_switches_per_req"],
                      rd["client_wake_pct"], rv["client_wake_pct"]])
    print(common.table(["row", "redis µs", "ruvio µs", "ratio", "redis busy", "ruvio busy",
                        "client µs (redis)", "client µs (ruvio)", "ctx/req redis",
                        "ctx/req ruvio", "client wake % redis", "client wake % ruvio"], lines))
    if not a.no_write:
        common.write_result("wakeups", {"command": "bench/wakeups.py " + " ".join(sys.argv[1:]),
                                        "requests": a.requests, "rounds": rounds,
                                        "medians": med, "loadavg": ct.loadavg()})


if __name__ == "__main__":
    main()
