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
same at pipeline 128 (the worker saturated instead of the client), get / set 10,000 keys (get:
every GET misses; gethit: the 10,000 keys k:<12 digits> are loaded first, 16-byte values).

Usage: bench/ab_env.py [--write NAME] ROW ROUNDS REQUESTS VARIANT...
  VARIANT = redis | NAME: | NAME:K=V[,K=V...]   (NAME: is the Ruvio build as it is)
  e.g. bench/ab_env.py getbit 9 1000000 redis pf: nopf:RUVIO_NO_PREFETCH=1
  Two worker builds side by side: a:RUVIO_WORKER_BIN=/path/a b:RUVIO_WORKER_BIN=/path/b
Prints; with --write NAME also bench/results/<date>-NAME.json (every sample, the medians, the
command line and the SHA-256 of each RUVIO_WORKER_BIN).
"""

import hashlib
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bits  # noqa: E402
import collections_throughput as ct  # noqa: E402
import common  # noqa: E402
import memory  # noqa: E402


def strings_10k(port, requests):
    """SET k:<i> (redis-benchmark's key names) to a 16-byte value for each of 10,000 keys."""
    memory.load_pipelined(port, 10000,
                          lambda i: memory._resp(b"SET", ct.key(b"k:", i), b"v" * 16),
                          lambda i: b"+OK\r\n")
    ct.expect("DBSIZE", memory.dbsize(port), 10000)


# row: (command, load, keyspace of __rand_int__, pipeline)
ROWS = {
    "pfcount": (["PFCOUNT", "hll:__rand_int__"], bits.hlls, 1000, 16),
    "getbit": (["GETBIT", "bm:__rand_int__", "5001"], bits.bitmaps_1k, 10000, 16),
    "getbit128": (["GETBIT", "bm:__rand_int__", "5001"], bits.bitmaps_1k, 10000, 128),
    "get": (["GET", "k:__rand_int__"], None, 10000, 16),
    "gethit": (["GET", "k:__rand_int__"], strings_10k, 10000, 16),
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


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    argv = sys.argv[1:]
    write = None
    if argv[:1] == ["--write"] and len(argv) > 1:
        write, argv = argv[1], argv[2:]
    if len(argv) < 4 or argv[0] not in ROWS:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    row, rounds, requests = argv[0], int(argv[1]), int(argv[2])
    variants = [parse_variant(v) for v in argv[3:]]
    common.need("redis-benchmark")
    results = {name: [] for name, _ in variants}
    for r in range(rounds):
        for name, env in variants if r % 2 == 0 else variants[::-1]:
            results[name].append(one_test(name, env, row, requests))
        time.sleep(0.1)
    base = statistics.median(x["us"] for x in results["redis"]) if "redis" in results else None
    medians = {}
    for name, xs in results.items():
        med = medians[name] = {k: statistics.median(x[k] for x in xs) for k in xs[0]}
        ratio = "%.2f" % (med["us"] / base) if base else "-"
        print("%-12s %-9s user %.3f sys %.3f" % (name, row, med["user"], med["sys"]))
        print("%-12s %-9s us/req %.3f (%s) ratio %s  req/s %.0f  p50 %.3f ms  p99 %.3f ms" % (
            name, row, med["us"], " ".join("%.3f" % x["us"] for x in xs), ratio, med["rps"],
            med["p50"], med["p99"]))

    if write:
        command, _, keyspace, pipeline = ROWS[row]
        path = common.write_result(write, {
            "command": "/usr/bin/python3 bench/ab_env.py " + " ".join(sys.argv[1:]),
            "row": row, "benchmark": {"command": command, "keyspace": keyspace,
                                      "pipeline": pipeline, "clients": CLIENTS,
                                      "requests": requests, "rounds": rounds},
            "variants": {name: {"env": env, "worker_sha256": sha256_of(env["RUVIO_WORKER_BIN"])
                                if "RUVIO_WORKER_BIN" in env else None}
                         for name, env in variants},
            "medians": medians, "samples": results})
        print(path, file=sys.stderr)


if __name__ == "__main__":
    main()
