#!/usr/bin/python3
"""A/B of worker variants chosen by environment variables, side by side with redis-server.

For one-off experiments on the request path: a change under trial reads an environment variable
(say RUVIO_NO_PREFETCH), and this script measures the variants in the same run, interleaved:
fresh server per test, the order reversed every other round, server on CPU 1 and redis-benchmark
on CPU 0 (bench/common.py), 50 clients. Per variant, medians over the rounds of:

  us/req   server on-CPU time per request (summed schedstat of the server's threads)
  user/sys the server's utime / stime per request (/proc/PID/stat, tick-sampled: coarse)
  req/s, p50, p99 as redis-benchmark reports them

Rows: pfcount and getbit are bits.py's PFCOUNT (cached) and GETBIT (1 KiB) rows, getbit128 the
same at pipeline 128 (the worker saturated instead of the client), get / set 10,000 keys.

Usage: bench/ab_env.py ROW ROUNDS REQUESTS VARIANT...
  VARIANT = redis | NAME: | NAME:K=V[,K=V...]   (NAME: is the Ruvio build as it is)
  e.g. bench/ab_env.py getbit 9 1000000 redis pf: nopf:RUVIO_NO_PREFETCH=1
Prints only (what it measured goes into a results file by hand: these are experiments).
"""

import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bits  # noqa: E402
import common  # noqa: E402

# row: (command, load, keyspace of __rand_int__, pipeline)
ROWS = {
    "pfcount": (["PFCOUNT", "hll:__rand_int__"], bits.hlls, 1000, 16),
    "getbit": (["GETBIT", "bm:__rand_int__", "5001"], bits.bitmaps_1k, 10000, 16),
    "getbit128": (["GETBIT", "bm:__rand_int__", "5001"], bits.bitmaps_1k, 10000, 128),
    "get": (["GET", "k:__rand_int__"], None, 10000, 16),
    "set": (["SET", "k:__rand_int__", "v"], None, 10000, 16),
}
CLIENTS = 50


def parse_variant(text):
    name, _, settings = text.partition(":")
    return name, dict(kv.split("=", 1) for kv in settings.split(",") if kv)


def start_with(kind, env):
    """common.start with `env` set for the server's start only (the supervisor passes its
    environment on to the worker)."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return common.start(kind)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def one_test(name, env, row, requests):
    command, load, keyspace, pipeline = ROWS[row]
    srv, pid = start_with("redis" if name == "redis" else "ruvio", env)
    try:
        if load:
            load(srv.port, requests)
        bench = ["taskset", "-c", common.CLIENT_CPU, "redis-benchmark", "-p", str(srv.port),
                 "-c", str(CLIENTS), "-P", str(pipeline), "-n", str(requests), "-r", str(keyspace),
                 "-q", "--csv", *command]
        u1, s1 = common.user_system_seconds(pid)
        c1 = common.server_cpu_ns(pid)
        out = subprocess.run(bench, capture_output=True, text=True, check=True).stdout
        c2 = common.server_cpu_ns(pid)
        u2, s2 = common.user_system_seconds(pid)
        csv = common.benchmark_rows(out)[-1]
        return {"us": (c2 - c1) / 1e3 / requests, "user": (u2 - u1) * 1e6 / requests,
                "sys": (s2 - s1) * 1e6 / requests, "rps": float(csv[1]), "p50": float(csv[2]),
                "p99": float(csv[5])}
    finally:
        srv.stop()


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in ROWS:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    row, rounds, requests = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    variants = [parse_variant(v) for v in sys.argv[4:]]
    common.need("redis-benchmark")
    results = {name: [] for name, _ in variants}
    for r in range(rounds):
        for name, env in variants if r % 2 == 0 else variants[::-1]:
            results[name].append(one_test(name, env, row, requests))
        time.sleep(0.1)
    base = statistics.median(x["us"] for x in results["redis"]) if "redis" in results else None
    for name, xs in results.items():
        med = {k: statistics.median(x[k] for x in xs) for k in xs[0]}
        ratio = "%.2f" % (med["us"] / base) if base else "-"
        print("%-12s %-9s user %.3f sys %.3f" % (name, row, med["user"], med["sys"]))
        print("%-12s %-9s us/req %.3f (%s) ratio %s  req/s %.0f  p50 %.3f ms  p99 %.3f ms" % (
            name, row, med["us"], " ".join("%.3f" % x["us"] for x in xs), ratio, med["rps"],
            med["p50"], med["p99"]))


if __name__ == "__main__":
    main()
