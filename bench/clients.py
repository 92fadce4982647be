#!/usr/bin/python3
"""What the client limits cost on the request path: GET and SET server CPU µs per request,
Ruvio beside Debian's redis-server in one run, both with the client limits at their
defaults (client-output-buffer-limit normal 0 0 0 / pubsub 32mb 8mb 60, query buffer 1gb,
maxclients 10000, tcp-keepalive 300), and Ruvio once more with a normal-class limit in force
(`normal 256mb 64mb 60`), so the output check does its whole work on every flush.

Primary figure: the server's on-CPU time per request, summed over its threads from
/proc/<pid>/task/*/schedstat; req/s beside it. redis-benchmark: 50 clients, pipeline 16, keys
from a 100,000 range, pinned to CPU 0, the server to CPU 1. Rounds alternate the order of the
servers; each figure is the median over the rounds. The machine is shared: the CPU the other
processes used during each test is recorded ("other CPU"), a figure taken beside more than
0.15 of it is flagged.

Usage: bench/clients.py [--rounds 3] [--requests 1000000] [--no-write]
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
OTHER_CPU_LIMIT = 0.15
TESTS = [("SET", ["-t", "set"]), ("GET", ["-t", "get"])]
# (row, server kind, CONFIG SET pairs applied after start)
SERVERS = [
    ("redis-server 7.0 (defaults)", "redis", []),
    ("ruvio (defaults)", "ruvio", []),
    ("ruvio (normal 256mb 64mb 60)", "ruvio",
     ["client-output-buffer-limit", "normal 256mb 64mb 60"]),
]


def run_test(port, pid, requests, extra):
    cmd = ["taskset", "-c", common.CLIENT_CPU, "redis-benchmark", "-p", str(port), "-c",
           str(CLIENTS), "-P", str(PIPELINE), "-n", str(requests), "-r", str(KEYSPACE), "--csv",
           *extra]
    ns0, cli0, sys0 = common.server_cpu_ns(pid), common.children_cpu_seconds(), common.system_busy_seconds()
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    ns = common.server_cpu_ns(pid) - ns0
    other = (common.system_busy_seconds() - sys0 - ns / 1e9 - (common.children_cpu_seconds() - cli0)) / wall
    if proc.returncode != 0 or "error" in (proc.stdout + proc.stderr).lower():
        raise RuntimeError(f"redis-benchmark failed:\n{proc.stdout}\n{proc.stderr}")
    rows = common.benchmark_rows(proc.stdout)
    return {"server_us_per_request": round(ns / 1e3 / requests, 4), "rps": float(rows[0][1]),
            "server_cpu": round(ns / 1e9 / wall, 3), "other_cpu": round(max(other, 0.0), 3)}


def run_server(kind, config, requests):
    srv, pid = common.start(kind)
    try:
        if config:
            out = subprocess.run(["redis-cli", "-p", str(srv.port), "CONFIG", "SET", *config],
                                 capture_output=True, text=True, check=True).stdout.strip()
            if out != "OK":
                raise RuntimeError(f"CONFIG SET {config}: {out}")
        return {name: run_test(srv.port, pid, requests, extra) for name, extra in TESTS}
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    common.need("redis-benchmark")
    runs = {row: [] for row, _, _ in SERVERS}
    for rnd in range(args.rounds):
        order = SERVERS if rnd % 2 == 0 else SERVERS[::-1]
        for row, kind, config in order:
            if kind == "ruvio" and not common.ruvio_available():
                continue
            r = run_server(kind, config, args.requests)
            runs[row].append(r)
            print(f"round {rnd + 1} {row:30} " + "  ".join(
                f"{t} {v['server_us_per_request']:.3f}us {v['rps']:.0f}/s other {v['other_cpu']}"
                for t, v in r.items()), file=sys.stderr)
    summary, table_rows = {}, []
    for row, _, _ in SERVERS:
        if not runs[row]:
            continue
        summary[row] = {}
        for t, _ in TESTS:
            us = common.median([r[t]["server_us_per_request"] for r in runs[row]])
            rps = common.median([r[t]["rps"] for r in runs[row]])
            other = max(r[t]["other_cpu"] for r in runs[row])
            summary[row][t] = {"server_us_per_request": us, "rps": rps, "max_other_cpu": other,
                               "noisy": other > OTHER_CPU_LIMIT}
            table_rows.append([t, row, f"{us:.3f}", f"{rps:,.0f}",
                               f"{other:.2f}" + (" (noisy)" if other > OTHER_CPU_LIMIT else "")])
    print(common.table(["test", "server", "server µs/req", "req/s", "max other CPU"],
                       table_rows))
    if not args.no_write:
        path = common.write_result("clients", {
            "command": "bench/clients.py " + " ".join(sys.argv[1:]),
            "clients": CLIENTS, "pipeline": PIPELINE, "keyspace": KEYSPACE,
            "requests": args.requests, "rounds": args.rounds,
            "servers": {row: {"kind": kind, "config_set": config,
                              "command": common.server_command(kind)}
                        for row, kind, config in SERVERS},
            "method": "server_us_per_request = delta of the summed first schedstat field of the "
                      "server's threads over the test / requests; median over rounds",
            "runs": runs, "summary": summary})
        print(path, file=sys.stderr)


if __name__ == "__main__":
    main()
