#!/usr/bin/python3
"""Two workers against two redis-servers (the Redis-per-core baseline), in one run.

Each round starts fresh servers and measures, with redis-benchmark (50 clients in all,
pipeline 16, random keys from -r 1000000, --csv), SET then GET:

  redis-pair  two redis-servers, pinned to CPU 0 and CPU 1 (taskset -a), two
              redis-benchmark processes at once, 25 clients each; figure = sum of their
              requests/s.
  proxy       Ruvio --workers 2 --cpus 0,1; two redis-benchmark processes at once, 25
              clients each, on the proxy port: about half the keys are forwarded over the
              worker mesh (whichever worker accepted the connection).
  direct      the same Ruvio; two `redis-benchmark --cluster` processes at once, 25 clients
              each, one started on each worker's direct port: each reads CLUSTER SLOTS/NODES,
              spreads its clients over both direct ports and gives each client keys of its
              own node (hash tags), so no key is forwarded and no MOVED is answered.

Every mode thus has the same client side: two redis-benchmark processes of 25 clients.

The figure of each mode is the median requests/s over the rounds. The mode order rotates
per round.

Then the mesh cost (one fresh Ruvio --workers 2 --cpus 0,1): a raw connection accepted by
worker 0 sends N pipelined commands (pipeline 100) whose keys are all worker 1's (every one
forwarded), then the same N commands with keys of worker 0 (all local). CPU time (utime +
stime from /proc/<pid>/stat) of both workers over each run; the mesh cost is
(CPU forwarded − CPU local) / N, in microseconds per forwarded command. GET and SET.

On this two-core machine the benchmark clients share the two cores with the servers, so
every throughput figure is bounded by client CPU as much as by server CPU (see the CPU
columns); the servers' CPU use is recorded next to each figure.

Usage: bench/proxy.py [--rounds 3] [--requests 1000000] [--mesh-commands 2000000]
                      [--no-write]
"""

import argparse
import os
import random
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import harness  # noqa: E402

CLIENTS = 50
PIPELINE = 16
KEYSPACE = 1_000_000
TESTS = ["SET", "GET"]
MODES = ["redis-pair", "proxy", "direct"]
MESH_PIPELINE = 100
OTHER_CPU_LIMIT = 0.15  # CPUs' worth of foreign work during a test that voids the figure


def bench_cmd(port, clients, requests, test, cluster=False):
    return ["redis-benchmark", "-p", str(port), "-c", str(clients), "-P", str(PIPELINE),
            "-n", str(requests), "-r", str(KEYSPACE), "-t", test.lower(), "--csv",
            *(["--cluster"] if cluster else [])]


def parse_rps(out):
    # --cluster prints its node list first: keep the CSV lines only.
    lines = [line for line in out.splitlines() if line.startswith('"')]
    rows = common.benchmark_rows("\n".join(lines))
    if len(rows) != 1:
        raise RuntimeError(f"unexpected redis-benchmark output:\n{out}")
    return float(rows[0][1])


def run_parallel(cmds):
    """Runs the redis-benchmark commands at once; returns the sum of their requests/s."""
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for c in cmds]
    total = 0.0
    for p, c in zip(procs, cmds):
        out, err = p.communicate(timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(c)} failed: {err}")
        total += parse_rps(out)
    return total


def measured(pids, fn):
    """(fn's result, CPU seconds of pids, wall seconds, CPU seconds used by everything else
    on the machine: all busy time minus the servers' and the benchmark clients')."""
    c0 = sum(common.cpu_seconds(p) for p in pids)
    b0, k0 = common.system_busy_seconds(), common.children_cpu_seconds()
    t0 = time.monotonic()
    r = fn()
    wall = time.monotonic() - t0
    cpu = sum(common.cpu_seconds(p) for p in pids) - c0
    other = common.system_busy_seconds() - b0 - cpu - (common.children_cpu_seconds() - k0)
    return r, cpu, wall, max(other, 0.0)


def start_ruvio():
    srv = harness.Server(kind="ruvio", args=["--workers", "2", "--cpus", "0,1"])
    harness.wait_mesh_up(srv.port)
    pids = srv.worker_pids()
    if len(pids) != 2:
        srv.stop()
        raise RuntimeError(f"expected 2 worker pids, got {pids}")
    return srv, pids


def start_redis_pair():
    srvs = []
    for cpu in ("0", "1"):
        s = harness.Server(kind="redis")
        subprocess.run(["taskset", "-a", "-p", "-c", cpu, str(s.pid)], check=True,
                       stdout=subprocess.DEVNULL)
        srvs.append(s)
    return srvs


def run_mode(mode, requests):
    out = {}
    if mode == "redis-pair":
        srvs = start_redis_pair()
        pids = [s.pid for s in srvs]
        cmds = lambda t: [bench_cmd(s.port, CLIENTS // 2, requests // 2, t) for s in srvs]  # noqa
    else:
        srv, pids = start_ruvio()
        srvs = [srv]
        # Two redis-benchmark processes of 25 clients, as for the pair: one client process
        # alone saturates its core (one thread) before two workers do.
        if mode == "proxy":
            cmds = lambda t: [bench_cmd(srv.port, CLIENTS // 2, requests // 2, t)  # noqa
                              for _ in range(2)]
        else:
            cmds = lambda t: [bench_cmd(srv.port + 1 + w, CLIENTS // 2, requests // 2, t,  # noqa
                                        cluster=True) for w in range(2)]
    try:
        for t in TESTS:
            k0 = common.children_cpu_seconds()
            rps, cpu, wall, other = measured(pids, lambda: run_parallel(cmds(t)))
            client = common.children_cpu_seconds() - k0
            out[t] = {"rps": round(rps), "server_cpu": round(cpu / wall, 3),
                      "client_cpu": round(client / wall, 3),
                      "other_cpu": round(other / wall, 3)}
            print(f"  {mode:10} {t:4} {rps:12,.0f} req/s  servers' CPU {cpu / wall:.2f}"
                  f"  clients' CPU {client / wall:.2f}  other CPU {other / wall:.2f}",
                  file=sys.stderr, flush=True)
        for s in srvs:
            if not s.running():
                raise RuntimeError(f"{mode}: a server exited during the run")
        out["cpus_allowed"] = [common.cpus_allowed(p) for p in pids]
        return out
    finally:
        for s in srvs:
            s.stop()


def keys_owned_by(worker, n, rnd):
    out = []
    while len(out) < n:
        k = f"key:{rnd.randrange(KEYSPACE)}"
        if harness.key_owner(k) == worker:
            out.append(k)
    return out


def recv_replies(sock, n, buf):
    """Reads n one-line or bulk replies (+OK / $len value / $-1); returns the rest."""
    got = 0
    pos = 0
    while got < n:
        i = buf.find(b"\r\n", pos)
        if i < 0:
            buf = buf[pos:]
            pos = 0
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise RuntimeError("connection closed")
            buf += chunk
            continue
        if buf[pos:pos + 1] == b"-":
            raise RuntimeError(f"error reply: {buf[pos:i]!r}")
        if buf[pos:pos + 1] == b"$" and buf[pos + 1:pos + 2] != b"-":
            end = i + 2 + int(buf[pos + 1:i]) + 2
            if len(buf) < end:
                buf = buf[pos:]
                pos = 0
                buf += sock.recv(1 << 20)
                continue
            pos = end
        else:
            pos = i + 2
        got += 1
    return buf[pos:]


def conn_on(port, worker):
    for _ in range(200):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n")
        data = b""
        while b"\r\n\r\n" not in data or b"worker_id:" not in data:
            data += s.recv(65536)
        if b"\r\nworker_id:%d\r\n" % worker in data:
            return s
        s.close()
    raise RuntimeError(f"no connection accepted by worker {worker}")


def mesh_cost(commands):
    """CPU microseconds per forwarded command: forwarded-only run minus local-only run."""
    rnd = random.Random(1)
    srv, pids = start_ruvio()
    try:
        sock = conn_on(srv.port, 0)
        result = {}
        for test in TESTS:
            runs = {}
            for label, owner in (("local", 0), ("forwarded", 1), ("local2", 0)):
                keys = keys_owned_by(owner, MESH_PIPELINE, rnd)
                if test == "SET":
                    batch = b"".join(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nxxx\r\n" %
                                     (len(k), k.encode()) for k in keys)
                else:
                    batch = b"".join(b"*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n" % (len(k), k.encode())
                                     for k in keys)

                def go():
                    buf = b""
                    for _ in range(commands // MESH_PIPELINE):
                        sock.sendall(batch)
                        buf = recv_replies(sock, MESH_PIPELINE, buf)
                    return commands // MESH_PIPELINE * MESH_PIPELINE

                n, cpu, wall, other = measured(pids, go)
                runs[label] = {"commands": n, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
                               "other_cpu": round(other / wall, 3),
                               "cpu_us_per_command": round(cpu / n * 1e6, 3)}
            local = (runs["local"]["cpu_s"] + runs["local2"]["cpu_s"]) / 2
            extra = (runs["forwarded"]["cpu_s"] - local) / runs["forwarded"]["commands"] * 1e6
            runs["mesh_cost_us_per_forwarded_command"] = round(extra, 3)
            result[test] = runs
            print(f"  mesh {test}: local {runs['local']['cpu_us_per_command']:.2f} / "
                  f"{runs['local2']['cpu_us_per_command']:.2f} us, forwarded "
                  f"{runs['forwarded']['cpu_us_per_command']:.2f} us per command (both "
                  f"workers' CPU) -> mesh cost {extra:.2f} us", file=sys.stderr, flush=True)
        sock.close()
        return result
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--mesh-commands", type=int, default=2_000_000)
    ap.add_argument("--no-write", action="store_true", help="print only, no results file")
    a = ap.parse_args()
    common.need("redis-benchmark")
    if not common.ruvio_available():
        sys.exit(f"{harness.RUVIO_BIN} not built")

    samples = {m: {t: [] for t in TESTS} for m in MODES}
    rounds = []
    for rnd in range(a.rounds):
        order = MODES[rnd % len(MODES):] + MODES[:rnd % len(MODES)]
        print(f"round {rnd + 1}/{a.rounds}: {' then '.join(order)}", file=sys.stderr)
        this = {"order": order}
        for mode in order:
            this[mode] = run_mode(mode, a.requests)
            for t in TESTS:
                samples[mode][t].append(this[mode][t]["rps"])
        rounds.append(this)
    mesh = mesh_cost(a.mesh_commands)

    medians, rows = {}, []
    for t in TESTS:
        m = {mode: common.median(samples[mode][t]) for mode in MODES}
        m["proxy_over_redis_pair"] = round(m["proxy"] / m["redis-pair"], 3)
        m["direct_over_redis_pair"] = round(m["direct"] / m["redis-pair"], 3)
        # Requests per second of server CPU (median over rounds): on two cores shared with
        # the clients, what each server side would do per core if the clients kept up.
        m["rps_per_server_cpu_second"] = {
            mode: round(common.median([r[mode][t]["rps"] / r[mode][t]["server_cpu"]
                                       for r in rounds if r[mode][t]["server_cpu"] > 0]))
            for mode in MODES}
        medians[t] = m
        rows.append([t, f"{m['redis-pair']:,.0f}", f"{m['proxy']:,.0f}",
                     f"{m['direct']:,.0f}", m["proxy_over_redis_pair"],
                     m["direct_over_redis_pair"],
                     *[f"{m['rps_per_server_cpu_second'][mode]:,}" for mode in MODES],
                     mesh[t]["mesh_cost_us_per_forwarded_command"]])
    print(common.table(["test", "Redis pair req/s", "Ruvio proxy req/s",
                        "Ruvio direct req/s", "proxy/pair", "direct/pair",
                        "pair req/CPU-s", "proxy req/CPU-s", "direct req/CPU-s",
                        "mesh µs/fwd cmd"], rows))
    others = [r[m][t]["other_cpu"] for r in rounds for m in MODES for t in TESTS]
    busy = sum(1 for o in others if o > OTHER_CPU_LIMIT)
    if busy:
        print(f"WARNING: {busy} of {len(others)} tests ran while other processes used more "
              f"than {OTHER_CPU_LIMIT:.2f} CPU (max {max(others):.2f}): the machine was "
              f"busy, these figures are not reliable; run again when it is idle.")
    if not a.no_write:
        path = common.write_result("proxy", {
            "tests_with_foreign_cpu_load": busy,
            "commands": {
                "redis-pair": "2 x redis-server (taskset -a -c 0 / -c 1); at once: "
                              + " ".join(bench_cmd("PORT_A", CLIENTS // 2, a.requests // 2,
                                                   "TEST")) + " and the same on PORT_B",
                "proxy": f"{harness.RUVIO_BIN} --workers 2 --cpus 0,1 --durability memory; "
                         "twice at once: " + " ".join(bench_cmd("PROXY_PORT", CLIENTS // 2,
                                                               a.requests // 2, "TEST")),
                "direct": "the same Ruvio; at once: " + " ".join(
                    bench_cmd("WORKER0_DIRECT_PORT", CLIENTS // 2, a.requests // 2, "TEST",
                              True)) + " and the same on WORKER1_DIRECT_PORT",
                "mesh": f"one raw connection accepted by worker 0, {a.mesh_commands} "
                        f"commands pipelined {MESH_PIPELINE} deep, keys all of worker 1 "
                        f"(forwarded) vs all of worker 0 (local, measured before and after)",
            },
            "rounds": a.rounds, "requests_per_test": a.requests, "clients": CLIENTS,
            "pipeline": PIPELINE, "keyspace": KEYSPACE,
            "method": "fresh servers per round and mode; modes one after the other, order "
                      "rotating per round; figure = median requests/s over rounds; "
                      "server_cpu = (utime+stime of the server processes during the test) / "
                      "wall time (2.00 = both cores); client_cpu = the redis-benchmark "
                      "processes'; other_cpu = every other process on the machine (from "
                      "/proc/stat); clients are not pinned and share the two cores with "
                      "the servers",
            "median_rps": medians, "mesh_cost": mesh, "samples": rounds})
        print(f"wrote {os.path.relpath(path, common.ROOT)}")


if __name__ == "__main__":
    main()
