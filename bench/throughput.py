#!/usr/bin/python3
"""Requests per second, Ruvio against Debian's redis-server in the same run.

Each round starts a fresh server of each kind, one after the other (never both loaded at
once), and runs every test with redis-benchmark (50 clients, pipeline 16, keys from a
100,000 range, --csv). The order of the two servers alternates between rounds; each
figure is the median over the rounds. The server is pinned to CPU 1 (Redis with taskset,
Ruvio's worker with --cpus 1) and redis-benchmark to CPU 0, so client and server do not
share a core on this two-core machine.

Tests: SET and GET and INCR (redis-benchmark -t), MGET of 3 keys, EXISTS and TTL (custom
commands, key:__rand_int__). SET runs first, so GET/MGET/EXISTS/TTL find most keys.

The server's CPU use during each test (user+system time of the measured process over the
test's wall time; 1.00 = one core fully busy) is recorded next to each figure: well below
1.00 means the server waited for the client, so that figure is client-bound. So is the
CPU time everything else on the machine used meanwhile ("other CPU"); the script warns when
that exceeds 0.15 CPU in any test (someone else's build: run again).

Usage: bench/throughput.py [--rounds 3] [--requests 2000000] [--servers redis,ruvio]
                           [--no-write]
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

CLIENTS = 50
PIPELINE = 16
KEYSPACE = 100_000
OTHER_CPU_LIMIT = 0.15  # CPUs' worth of foreign work during a test that voids the figure

# (row name, redis-benchmark arguments after the common ones)
TESTS = [
    ("SET", ["-t", "set"]),
    ("GET", ["-t", "get"]),
    ("INCR", ["-t", "incr"]),
    ("MGET (3 keys)", ["MGET", "key:__rand_int__", "key:__rand_int__", "key:__rand_int__"]),
    ("EXISTS", ["EXISTS", "key:__rand_int__"]),
    ("TTL", ["TTL", "key:__rand_int__"]),
]


def bench_command(port, requests, extra):
    return ["taskset", "-c", common.CLIENT_CPU, "redis-benchmark", "-p", str(port),
            "-c", str(CLIENTS), "-P", str(PIPELINE), "-n", str(requests), "-r", str(KEYSPACE),
            "--csv", *extra]


def run_test(port, pid, requests, extra):
    """rps, p50 latency (ms) and the server's CPU use (1.0 = one core busy) during the test.
    A server well below 1.0 was waiting for the client: the figure is then client-bound."""
    cpu0, cli0, sys0 = common.cpu_seconds(pid), common.children_cpu_seconds(), common.system_busy_seconds()
    t0 = time.monotonic()
    out = subprocess.run(bench_command(port, requests, extra), check=True,
                         capture_output=True, text=True).stdout
    wall = time.monotonic() - t0
    server = common.cpu_seconds(pid) - cpu0
    util = server / wall
    # CPU used by everything else on the machine meanwhile (other people's builds...):
    # a figure measured while this is high is not comparable.
    other = (common.system_busy_seconds() - sys0 - server - (common.children_cpu_seconds() - cli0)) / wall
    rows = common.benchmark_rows(out)
    if len(rows) != 1:
        raise RuntimeError(f"unexpected redis-benchmark output:\n{out}")
    return float(rows[0][1]), float(rows[0][4]), round(util, 3), round(max(other, 0.0), 3)


def run_server(kind, requests):
    srv, pid = common.start(kind)
    try:
        out = {}
        for name, extra in TESTS:
            rps, p50, util, other = run_test(srv.port, pid, requests, extra)
            out[name] = {"rps": rps, "p50_ms": p50, "server_cpu": util, "other_cpu": other}
            print(f"  {kind:5} {name:14} {rps:12,.0f} req/s  server CPU {util:.2f}"
                  f"  other CPU {other:.2f}", file=sys.stderr, flush=True)
        if srv.proc.poll() is not None:
            raise RuntimeError(f"{kind} exited during the run")
        return out, common.cpus_allowed(pid)
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=2_000_000)
    ap.add_argument("--servers", default=None,
                    help="comma list of redis,ruvio (default: both; redis only if Ruvio "
                         "is not built)")
    ap.add_argument("--no-write", action="store_true", help="print only, no results file")
    a = ap.parse_args()
    common.need("redis-benchmark")
    servers = a.servers.split(",") if a.servers else (
        ["redis", "ruvio"] if common.ruvio_available() else ["redis"])
    if "ruvio" not in servers:
        print("note: Ruvio not measured (not built or not asked for)", file=sys.stderr)

    samples = {k: {name: [] for name, _ in TESTS} for k in servers}
    cpu = {k: {name: [] for name, _ in TESTS} for k in servers}
    rounds = []
    pinned = {}
    for rnd in range(a.rounds):
        order = servers if rnd % 2 == 0 else list(reversed(servers))
        print(f"round {rnd + 1}/{a.rounds}: {' then '.join(order)}", file=sys.stderr)
        this = {"order": order}
        for kind in order:
            res, pinned[kind] = run_server(kind, a.requests)
            this[kind] = res
            for name, m in res.items():
                samples[kind][name].append(m["rps"])
                cpu[kind][name].append(m["server_cpu"])
        rounds.append(this)

    medians = {}
    rows = []
    for name, _ in TESTS:
        row = {k: common.median(samples[k][name]) for k in servers}
        if "redis" in row and "ruvio" in row and row["redis"]:
            row["ratio_ruvio_over_redis"] = round(row["ruvio"] / row["redis"], 3)
        row["server_cpu"] = {k: common.median(cpu[k][name]) for k in servers}
        # Requests per second of server CPU: what the server would do on a full core if
        # the client kept up. Median over rounds of each round's rps / CPU.
        row["rps_per_server_cpu_second"] = {
            k: round(common.median([r / c for r, c in zip(samples[k][name], cpu[k][name])
                                    if c > 0]) or 0) for k in servers}
        medians[name] = row
        rows.append([name] + [f"{row[k]:,.0f}" for k in servers] +
                    ([row.get("ratio_ruvio_over_redis")] if len(servers) > 1 else []) +
                    [f"{row['server_cpu'][k]:.2f}" for k in servers] +
                    [f"{row['rps_per_server_cpu_second'][k]:,}" for k in servers])
    headers = ["test"] + [f"{k} req/s" for k in servers] + (
        ["Ruvio/Redis"] if len(servers) > 1 else []) + [f"{k} CPU" for k in servers] + [
        f"{k} req/CPU-s" for k in servers]
    print(common.table(headers, rows))
    others = [m["other_cpu"] for r in rounds for k in servers for m in r[k].values()]
    busy = sum(1 for o in others if o > OTHER_CPU_LIMIT)
    if busy:
        print(f"WARNING: {busy} of {len(others)} tests ran while other processes used more "
              f"than {OTHER_CPU_LIMIT:.2f} CPU (max {max(others):.2f}): the machine was "
              f"busy, these figures are not reliable; run again when it is idle.")
    if not a.no_write:
        path = common.write_result("throughput", {
            "servers": {k: common.server_command(k) for k in servers},
            "server_cpus_allowed": pinned,
            "client": f"taskset -c {common.CLIENT_CPU} redis-benchmark",
            "commands": {name: " ".join(bench_command("PORT", a.requests, extra))
                         for name, extra in TESTS},
            "rounds": a.rounds, "requests_per_test": a.requests, "clients": CLIENTS,
            "pipeline": PIPELINE, "keyspace": KEYSPACE,
            "method": "fresh server per round and kind; servers run one after the other; "
                      "order alternates per round; figure = median requests/s over rounds; "
                      "server_cpu = (utime+stime of the measured process during the test) / "
                      "wall time of the test",
            "tests_with_foreign_cpu_load": busy,
            "median_rps": medians, "samples": rounds})
        print(f"wrote {os.path.relpath(path, common.ROOT)}")


if __name__ == "__main__":
    main()
