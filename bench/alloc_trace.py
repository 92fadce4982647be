#!/usr/bin/python3
"""Cost of the always-on eBPF allocation tracing on the SET benchmark (issue 5: at most 3%).

Each round starts a fresh Ruvio (one worker on CPU 1, as throughput.py) with
`--alloc-trace on` and another with `--alloc-trace off`, in alternating order, and runs the
same redis-benchmark SET test on each (50 clients, pipeline 16, keys from a 10,000,000
range so most SETs insert a new key and allocate). With tracing on the worker's sampler
fires the USDT probe about once per 512 KiB allocated and the supervisor's BPF program is
attached to it (the script waits until /alloc says the worker is traced). Each figure is
the median over the rounds; the cost is 1 - on/off.

Usage: bench/alloc_trace.py [--rounds 5] [--requests 2000000] [--no-write]
"""

import argparse
import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import harness  # noqa: E402
import throughput  # noqa: E402

KEYSPACE = 10_000_000


def traced(admin_port):
    with urllib.request.urlopen(f"http://127.0.0.1:{admin_port}/alloc", timeout=5) as r:
        body = json.load(r)
    return body["state"] == "on" and body["workers"] and body["workers"][0]["traced"], body


def run(mode, requests):
    srv = harness.Server(kind="ruvio", admin=True,
                         args=["--workers", "1", "--cpus", common.SERVER_CPU,
                               "--alloc-trace", mode])
    try:
        pid = srv.worker_pids()[0]
        if mode == "on":
            deadline = time.monotonic() + 5
            ok, body = traced(srv.admin_port)
            while not ok and time.monotonic() < deadline:
                time.sleep(0.1)
                ok, body = traced(srv.admin_port)
            if not ok:
                raise RuntimeError(f"tracing did not attach: {body}")
        rps, p50, util, other = throughput.run_test(
            srv.port, pid, requests, ["-t", "set"])
        sampled = None
        if mode == "on":
            sampled = traced(srv.admin_port)[1]["workers"][0]["live_bytes"]
        return {"rps": rps, "p50_ms": p50, "server_cpu": util, "other_cpu": other,
                "server_cpu_ns_per_set": round(util / rps * 1e9, 1),
                "sampled_live_bytes": sampled}
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--requests", type=int, default=2_000_000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    common.need("redis-benchmark")
    # throughput.bench_command's key range is its own; SET here uses ours.
    throughput.KEYSPACE = KEYSPACE
    samples = {"on": [], "off": []}
    for r in range(args.rounds):
        order = ["on", "off"] if r % 2 == 0 else ["off", "on"]
        for mode in order:
            s = run(mode, args.requests)
            samples[mode].append(s)
            print(f"round {r + 1} {mode:3}: {s['rps']:>10.0f} SET/s  server cpu "
                  f"{s['server_cpu']:.2f}  other cpu {s['other_cpu']:.2f}", flush=True)
    on = common.median([s["rps"] for s in samples["on"]])
    off = common.median([s["rps"] for s in samples["off"]])
    cost = 1 - on / off
    # The client saturates before the server here (server CPU < 1.0), so the server's CPU
    # time per SET is the sharper figure of what tracing costs the server.
    ns_on = common.median([s["server_cpu_ns_per_set"] for s in samples["on"]])
    ns_off = common.median([s["server_cpu_ns_per_set"] for s in samples["off"]])
    cpu_cost = ns_on / ns_off - 1
    print(common.table(["tracing", "SET/s (median)", "server CPU ns/SET (median)"],
                       [["off", f"{off:.0f}", f"{ns_off:.0f}"], ["on", f"{on:.0f}", f"{ns_on:.0f}"]]))
    print(f"cost of always-on tracing: throughput {cost * 100:.2f}%, "
          f"server CPU per SET {cpu_cost * 100:+.2f}%")
    if not args.no_write:
        path = common.write_result("alloc-trace", {
            "command": " ".join(throughput.bench_command("PORT", args.requests, ["-t", "set"])),
            "server": common.server_command("ruvio") + " --admin-port PORT+10000 "
                      "--alloc-trace on|off",
            "rounds": args.rounds, "requests": args.requests, "keyspace": KEYSPACE,
            "median_rps": {"on": on, "off": off}, "cost_fraction": round(cost, 4),
            "median_server_cpu_ns_per_set": {"on": ns_on, "off": ns_off},
            "cpu_cost_fraction": round(cpu_cost, 4),
            "samples": samples})
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
