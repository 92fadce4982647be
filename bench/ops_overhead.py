#!/usr/bin/python3
"""What the ops branch's per-command bookkeeping costs on the command path: INFO
commandstats counters (a flat array by command id), the two clock reads per command, error
accounting, the slow log and latency-tracking histograms. GET and SET, side by side with
Debian's redis-server 7.0.15 in the same run, on:

  redis          redis-server (its call() does the same bookkeeping: ustime() twice,
                 commandstats, an HDR histogram per command with latency-tracking yes)
  ruvio-base     Ruvio built from the commit before this work (--base-build DIR), if given
  ruvio          this build, Redis's defaults (latency-tracking yes, slowlog 10000 µs)
  ruvio-off      this build with latency-tracking no and slowlog-log-slower-than -1

Method as bench/collections_throughput.py: a fresh server per round, pinned (server on CPU
1, redis-benchmark on CPU 0), 50 clients, pipeline 16, keys __rand_int__ over 10,000.
Primary figure: the server process's on-CPU µs per request (summed schedstat of its
threads); req/s beside it; medians over the rounds. The machine is shared: the CPU everything
else used meanwhile is recorded per test (a test above 0.15 CPU of foreign work is flagged).

Usage: bench/ops_overhead.py [--rounds 3] [--requests 400000] [--base-build /tmp/ops-base/build]
                             [--no-write]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import harness  # noqa: E402
from collections_throughput import OTHER_CPU_LIMIT, run_test  # noqa: E402

KEYS = 10_000
ROWS = [("SET", "SET key:__rand_int__ xxxxxxxxxxxxxxxx"), ("GET", "GET key:__rand_int__")]


def start(kind, base_build):
    if kind in ("ruvio", "ruvio-off", "ruvio-base"):
        saved = harness.RUVIO_BIN
        if kind == "ruvio-base":
            harness.RUVIO_BIN = os.path.join(base_build, "supervisor", "ruvio")
        try:
            srv, pid = common.start("ruvio")
        finally:
            harness.RUVIO_BIN = saved
        if kind == "ruvio-off":
            for name, value in (("latency-tracking", "no"), ("slowlog-log-slower-than", "-1")):
                if srv.client().config_set(name, value) is not True:
                    raise RuntimeError(f"CONFIG SET {name} {value} refused")
        return srv, pid
    return common.start("redis")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=400_000)
    ap.add_argument("--base-build", default=None)
    ap.add_argument("--no-write", action="store_true")
    opts = ap.parse_args()
    common.need("redis-benchmark")
    kinds = ["redis", "ruvio", "ruvio-off"]
    if opts.base_build:
        kinds.insert(1, "ruvio-base")
    results = {k: {name: [] for name, _ in ROWS} for k in kinds}
    flagged = []
    for rnd in range(opts.rounds):
        order = kinds if rnd % 2 == 0 else list(reversed(kinds))
        for kind in order:
            srv, pid = start(kind, opts.base_build)
            try:
                for name, cmd in ROWS:
                    us, rps, busy, other = run_test(srv.port, pid, opts.requests, [(KEYS, cmd)])
                    results[kind][name].append({"us_per_request": us, "rps": rps,
                                                "server_cpus": busy, "other_cpus": other})
                    if other > OTHER_CPU_LIMIT:
                        flagged.append((rnd, kind, name, other))
                    print(f"round {rnd} {kind:10} {name}: {us:.3f} µs/req  {rps:,.0f} req/s  "
                          f"other {other:.2f} CPU", file=sys.stderr)
            finally:
                srv.stop()
    summary = {}
    for kind in kinds:
        summary[kind] = {}
        for name, _ in ROWS:
            runs = results[kind][name]
            summary[kind][name] = {
                "us_per_request": common.median([r["us_per_request"] for r in runs]),
                "rps": common.median([r["rps"] for r in runs])}
    rows = []
    for name, _ in ROWS:
        redis_us = summary["redis"][name]["us_per_request"]
        for kind in kinds:
            s = summary[kind][name]
            rows.append([name, kind, f"{s['us_per_request']:.3f}",
                         f"{s['us_per_request'] / redis_us:.2f}", f"{s['rps']:,.0f}"])
    print(common.table(["command", "server", "server µs/request", "vs redis", "req/s"], rows))
    if flagged:
        print(f"warning: foreign CPU above {OTHER_CPU_LIMIT} in {len(flagged)} test(s): "
              f"{flagged}", file=sys.stderr)
    if not opts.no_write:
        path = common.write_result("ops-overhead", {
            "command": " ".join(["bench/ops_overhead.py", *sys.argv[1:]]),
            "method": "server_us_per_request = delta of the summed first schedstat field of "
                      "the measured process's threads / requests; medians over rounds; 50 "
                      "clients, pipeline 16, server CPU 1, client CPU 0",
            "servers": {k: (common.server_command("redis") if k == "redis" else
                            common.server_command("ruvio")) for k in kinds},
            "base_build": opts.base_build,
            "rounds": opts.rounds, "requests": opts.requests,
            "summary": summary, "runs": results, "flagged_foreign_cpu": flagged})
        print(path)


if __name__ == "__main__":
    main()
