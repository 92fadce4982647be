#!/usr/bin/python3
"""Eviction under load, side by side with redis-server in one run (issue 13):

  1. maxmemory 100mb, allkeys-lru, then
     redis-benchmark -t set -r 10000000 -d 100 -n N (N = 3,000,000 in the issue; --requests
     scales it down on a loaded machine): req/s, server CPU µs per request (on-CPU ns of
     every thread of the server process from /proc/<pid>/task/*/schedstat), and used_memory
     sampled every 100 ms from a second connection (the maximum, against the limit + 1%);
  2. a zipfian cache load over the same 10M key names (s = 0.99, GET in batches of 100 and a
     SET of every miss, as a cache fill does): the hit ratio of the second half.

Both servers pinned to one CPU (bench/common.py), the loader on the other. The machine is
shared: the foreign CPU used meanwhile (all CPUs' busy time minus the server's) is recorded
next to each figure, as the other scripts do.

Usage: bench/eviction.py [--requests N] [--zipf-requests N]
"""

import argparse
import bisect
import itertools
import os
import random
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from collections_throughput import server_cpu_ns  # noqa: E402  (schedstat on-CPU ns)

LIMIT = 100 * 1024 * 1024
KEYSPACE = 10_000_000


class Sampler(threading.Thread):
    """used_memory every 100 ms until stopped."""

    def __init__(self, srv):
        super().__init__(daemon=True)
        self.r = srv.client()
        self.samples = []
        self.stop_flag = threading.Event()

    def run(self):
        while not self.stop_flag.is_set():
            self.samples.append(int(self.r.info("memory")["used_memory"]))
            self.stop_flag.wait(0.1)


def key(i):
    return f"key:{i:012d}"  # redis-benchmark's __rand_int__ key names


def zipf_load(srv, requests, seed=7):
    rng = random.Random(seed)
    n = 1_000_000  # ranks; rank r maps to a fixed pseudo-random key of the 10M
    cum = list(itertools.accumulate(1.0 / (r ** 0.99) for r in range(1, n + 1)))
    total = cum[-1]
    r = srv.client()
    hits = misses = 0
    batch = 100
    half = requests // 2
    done = 0
    while done < requests:
        ids = [(bisect.bisect_left(cum, rng.random() * total) * 2654435761) % KEYSPACE
               for _ in range(batch)]
        names = [key(i) for i in ids]
        got = r.mget(names)
        p = r.pipeline(transaction=False)
        for name, v in zip(names, got):
            if v is None:
                p.set(name, "x" * 100)
        p.execute()
        if done >= half:
            h = sum(1 for v in got if v is not None)
            hits += h
            misses += batch - h
        done += batch
    return hits / max(hits + misses, 1)


def run(kind, requests, zipf_requests):
    srv, pid = common.start(kind)
    try:
        r = srv.client()
        r.config_set("maxmemory", str(LIMIT))
        r.config_set("maxmemory-policy", "allkeys-lru")
        sampler = Sampler(srv)
        sampler.start()
        cmd = ["taskset", "-c", common.CLIENT_CPU, "redis-benchmark", "-p", str(srv.port),
               "-t", "set", "-r", str(KEYSPACE), "-d", "100", "-n", str(requests), "-q"]
        cpu0, busy0, t0 = server_cpu_ns(pid), common.system_busy_seconds(), time.monotonic()
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        cpu1, busy1, t1 = server_cpu_ns(pid), common.system_busy_seconds(), time.monotonic()
        sampler.stop_flag.set()
        sampler.join()
        m = re.findall(r"SET: ([\d.]+) requests per second", out.replace("\r", "\n"))
        rps = float(m[-1]) if m else requests / (t1 - t0)
        info = r.info()
        server_s = (cpu1 - cpu0) / 1e9
        hit = zipf_load(srv, zipf_requests)
        return {
            "kind": kind,
            "set_requests": requests,
            "set_req_per_s": rps,
            "server_cpu_us_per_request": (cpu1 - cpu0) / 1e3 / requests,
            "wall_s": round(t1 - t0, 2),
            "foreign_cpu_s": round(max(busy1 - busy0 - server_s, 0.0), 2),
            "used_memory_max": max(sampler.samples),
            "used_memory_samples": len(sampler.samples),
            "used_memory_max_over_limit_pct": round(100.0 * (max(sampler.samples) - LIMIT) / LIMIT, 3),
            "evicted_keys": int(info["evicted_keys"]),
            "keys_after_set": int(r.dbsize()),
            "zipf_requests": zipf_requests,
            "zipf_hit_ratio_pct": round(100.0 * hit, 2),
            "server_command": common.server_command(kind),
            "benchmark_command": " ".join(cmd),
        }
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=3_000_000)
    ap.add_argument("--zipf-requests", type=int, default=200_000)
    a = ap.parse_args()
    common.need("redis-benchmark")
    rows = [run(kind, a.requests, a.zipf_requests) for kind in ("redis", "ruvio")]
    red, ruv = rows
    path = common.write_result("eviction", {
        "command": " ".join(sys.argv),
        "limit_bytes": LIMIT,
        "policy": "allkeys-lru",
        "results": rows,
        "cpu_ratio_ruvio_over_redis": ruv["server_cpu_us_per_request"] / red["server_cpu_us_per_request"],
        "hit_ratio_points_ruvio_minus_redis": ruv["zipf_hit_ratio_pct"] - red["zipf_hit_ratio_pct"],
    })
    print(common.table(
        ["server", "SET req/s", "CPU µs/req", "used_memory max", "over limit %", "evicted",
         "zipf hit %", "foreign CPU s"],
        [[x["kind"], f"{x['set_req_per_s']:.0f}", f"{x['server_cpu_us_per_request']:.2f}",
          x["used_memory_max"], x["used_memory_max_over_limit_pct"], x["evicted_keys"],
          x["zipf_hit_ratio_pct"], x["foreign_cpu_s"]] for x in rows]))
    print(path)


if __name__ == "__main__":
    main()
