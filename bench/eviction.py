#!/usr/bin/python3
"""Eviction under load, side by side with redis-server in one run (issue 13):

  1. maxmemory 100mb, allkeys-lru, then
     redis-benchmark -t set -r 10000000 -d 100 -n N (N = 3,000,000 in the issue; --requests
     scales it down on a loaded machine): req/s, server CPU µs per request (on-CPU ns of
     every thread of the server process from /proc/<pid>/task/*/schedstat), and used_memory
     sampled every 100 ms from a second connection (the maximum, against the limit + 1%);
  2. a zipfian cache load over the same 10M key names (s = 0.99, GET in batches of 100 and a
     SET of every miss, as a cache fill does): the hit ratio of the second half.

Where the CPU of a SET goes (the floor of the ratio): before 1., the same SETs with no limit
(`baseline_*`: --baseline-requests on the empty server, nothing evicted; FLUSHALL after), and
after 1., --steady-requests more on the full server, where every SET of a new key evicts
(`steady_*`). For each phase (and for 1. itself) the server's user and system CPU per request
(utime/stime of all its threads, /proc/<pid>/stat, 10 ms ticks: exact enough over seconds) and
its context switches per request (voluntary + involuntary, all threads): what part of the
per-request cost is user space at all, i.e. what a user-space change can reach.

Both servers pinned to one CPU (bench/common.py), the loader on the other. The machine is
shared: the foreign CPU used meanwhile (all CPUs' busy time minus the server's) is recorded
next to each figure, as the other scripts do.

Usage: bench/eviction.py [--requests N] [--zipf-requests N] [--baseline-requests N]
                         [--steady-requests N] [--result-name eviction]
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
from common import server_cpu_ns  # noqa: E402  (schedstat on-CPU ns)

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


def user_sys_seconds(pid):
    """(utime, stime) of the whole process (all its threads) so far, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tck = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tck, int(fields[12]) / tck


def context_switches(pid):
    """Voluntary + involuntary context switches of all threads of `pid` so far."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        except (OSError, ValueError):
            pass  # a thread that exited meanwhile
    return total


class Phase:
    """The server's CPU (schedstat total, utime/stime split), context switches, the machine's
    busy time and the wall clock between start() and stop(), per request."""

    def __init__(self, pid):
        self.pid = pid

    def snap(self):
        return (server_cpu_ns(self.pid), *user_sys_seconds(self.pid),
                context_switches(self.pid), common.system_busy_seconds(), time.monotonic())

    def start(self):
        self.a = self.snap()

    def stop(self):
        self.b = self.snap()

    def figures(self, prefix, requests):
        (c0, u0, s0, x0, busy0, t0), (c1, u1, s1, x1, busy1, t1) = self.a, self.b
        server_s = (c1 - c0) / 1e9
        out = {
            f"{prefix}cpu_us_per_request": round((c1 - c0) / 1e3 / requests, 3),
            f"{prefix}user_us_per_request": round((u1 - u0) * 1e6 / requests, 3),
            f"{prefix}sys_us_per_request": round((s1 - s0) * 1e6 / requests, 3),
            f"{prefix}user_share": round((u1 - u0) / max(u1 - u0 + s1 - s0, 1e-9), 3),
            f"{prefix}context_switches_per_request": round((x1 - x0) / requests, 4),
            f"{prefix}wall_s": round(t1 - t0, 2),
            f"{prefix}foreign_cpu_s": round(max(busy1 - busy0 - server_s, 0.0), 2),
        }
        return out


def benchmark(srv, requests):
    """redis-benchmark's SET load; returns (req/s as it reports it, its command line)."""
    cmd = ["taskset", "-c", common.CLIENT_CPU, "redis-benchmark", "-p", str(srv.port),
           "-t", "set", "-r", str(KEYSPACE), "-d", "100", "-n", str(requests), "-q"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    m = re.findall(r"SET: ([\d.]+) requests per second", out.replace("\r", "\n"))
    return (float(m[-1]) if m else None), cmd


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


def run(kind, requests, zipf_requests, baseline_requests, steady_requests, label=None,
        worker_bin=None):
    srv, pid = common.start(kind, worker_bin=worker_bin)
    try:
        r = srv.client()
        extra = {}
        if baseline_requests:
            # The same SETs with no limit: what a SET costs when nothing is evicted.
            ph = Phase(pid)
            ph.start()
            rps, _ = benchmark(srv, baseline_requests)
            ph.stop()
            extra.update({"baseline_requests": baseline_requests, "baseline_req_per_s": rps,
                          "baseline_keys": int(r.dbsize()),
                          **ph.figures("baseline_", baseline_requests)})
            r.execute_command("FLUSHALL", "SYNC")
        r.config_set("maxmemory", str(LIMIT))
        r.config_set("maxmemory-policy", "allkeys-lru")
        sampler = Sampler(srv)
        sampler.start()
        ph = Phase(pid)
        ph.start()
        rps, cmd = benchmark(srv, requests)
        ph.stop()
        sampler.stop_flag.set()
        sampler.join()
        (cpu0, _, _, _, busy0, t0), (cpu1, _, _, _, busy1, t1) = ph.a, ph.b
        rps = rps if rps is not None else requests / (t1 - t0)
        info = r.info()
        server_s = (cpu1 - cpu0) / 1e9
        split = ph.figures("", requests)
        for k in ("user_us_per_request", "sys_us_per_request", "user_share",
                  "context_switches_per_request"):
            extra[k] = split[k]
        if steady_requests:
            # The limit is reached: every SET of a new key (all but ~7% of them) evicts.
            ev0 = int(r.info("stats")["evicted_keys"])
            ph = Phase(pid)
            ph.start()
            srps, _ = benchmark(srv, steady_requests)
            ph.stop()
            extra.update({"steady_requests": steady_requests, "steady_req_per_s": srps,
                          "steady_evicted_per_request": round(
                              (int(r.info("stats")["evicted_keys"]) - ev0) / steady_requests, 3),
                          **ph.figures("steady_", steady_requests)})
        hit = zipf_load(srv, zipf_requests)
        return {
            "kind": label or kind,
            "worker_bin": worker_bin,
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
            **extra,
            "server_command": common.server_command(kind),
            "benchmark_command": " ".join(cmd),
        }
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=3_000_000)
    ap.add_argument("--zipf-requests", type=int, default=200_000)
    ap.add_argument("--baseline-requests", type=int, default=600_000,
                    help="SETs with no limit first (0: skip); 600,000 stay under 100 MB")
    ap.add_argument("--steady-requests", type=int, default=1_000_000,
                    help="SETs on the full server after the main run (0: skip)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="redis, ruvio, redis, ruvio ...: interleaved rounds (the figures of "
                         "every round are kept; the ratios are of the medians)")
    ap.add_argument("--result-name", default="eviction")
    ap.add_argument("--ruvio-workers", default="",
                    help="LABEL=PATH,...: one Ruvio column per ruvio-worker binary (e.g. "
                         "before=/tmp/w0,after=/tmp/w1), each in every round; the ratios "
                         "are of the last one")
    a = ap.parse_args()
    common.need("redis-benchmark")
    servers = [("redis", "redis", None)]
    if a.ruvio_workers:
        for item in a.ruvio_workers.split(","):
            label, path = item.split("=", 1)
            servers.append(("ruvio", f"ruvio-{label}", path))
    else:
        servers.append(("ruvio", "ruvio", None))
    rounds = [[run(kind, a.requests, a.zipf_requests, a.baseline_requests, a.steady_requests,
                   label, path) for kind, label, path in servers] for _ in range(a.rounds)]
    rows = [median_row([rd[i] for rd in rounds]) for i in range(len(servers))]
    red, ruv = rows[0], rows[-1]
    ratios = {}
    for prefix in ("", "baseline_", "steady_"):
        for field in ("cpu_us_per_request" if prefix else "server_cpu_us_per_request",
                      "user_us_per_request", "sys_us_per_request"):
            k = prefix + field
            for x in rows[1:]:
                if red.get(k) and x.get(k) is not None:
                    ratios.setdefault(x["kind"], {})[k] = round(x[k] / red[k], 3)
    path = common.write_result(a.result_name, {
        "rounds": a.rounds,
        "rounds_results": rounds if a.rounds > 1 else None,
        "ratios_ruvio_over_redis": ratios,
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
    split = [[x["kind"], phase, x.get(p + "cpu_us_per_request", x.get("server_cpu_us_per_request")
                                       if not p else None),
              x.get(p + "user_us_per_request"), x.get(p + "sys_us_per_request"),
              x.get(p + "context_switches_per_request"), x.get(p + "req_per_s",
                                                               x.get("set_req_per_s"))]
             for x in rows for phase, p in (("no limit", "baseline_"), ("main run", ""),
                                            ("full (evicting)", "steady_"))
             if p == "" or x.get(p + "requests")]
    print(common.table(["server", "phase", "CPU µs/req", "user µs/req", "sys µs/req",
                        "ctx switches/req", "req/s"], split))
    print(path)


def median_row(rows):
    """One row of the figures' medians over rounds (non-numeric fields from the first)."""
    if len(rows) == 1:
        return rows[0]
    out = dict(rows[0])
    for k, v in rows[0].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            vals = [r[k] for r in rows if isinstance(r.get(k), (int, float))]
            out[k] = common.median(vals)
    return out


if __name__ == "__main__":
    main()
