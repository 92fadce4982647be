#!/usr/bin/python3
"""List, hash, set and sorted-set throughput, Ruvio against Debian's redis-server 7.0.15 in
the same run (the collections issue's throughput rows), bench/throughput.py's method.

Each round starts a fresh server of each kind, one after the other (never both loaded at
once; the order alternates between rounds), pinned as throughput.py pins: the server on CPU
1 (Redis with taskset, Ruvio's worker with --cpus 1), redis-benchmark on CPU 0. Per row the
server is emptied (FLUSHALL), the row's data is loaded over one raw socket with every reply
checked, its size checked (DBSIZE, LLEN, HLEN, SCARD, ZCARD), one probe request per command
is sent with redis-cli (its reply must not be an error, and its type must be the one
redis-server gave), then redis-benchmark runs the custom command (50 clients, pipeline 16),
and afterwards the data is checked again (a row never measures errors or empty keys).

The primary figure is the server's CPU time per request: the sum of the first field of
/proc/<pid>/task/*/schedstat (on-CPU ns of each thread of the measured process: Redis, or
Ruvio's worker) over the test, divided by the requests. Requests/s (redis-benchmark's own
figure; for the two-command rows the sum of the two processes') is reported beside it.
Each figure is the median over the rounds. The CPU time everything else on the machine used
meanwhile is recorded per test; the script warns when it exceeds 0.15 CPU in any test.

SPOP+SADD runs two redis-benchmark processes at once, 25 clients and half the requests each,
so the data size stays bounded (SPOP's set holds at least as many members as the SPOP process
sends requests). LINSERT+LREM must stay in step (two racing processes let the list length and
the pivot's depth drift, so that row was not a steady measurement): it runs bench/pair_client.py
instead, 50 clients each on its own 100-element list lp:<client>, every pipeline of 16 being 8
pairs of LINSERT lp:<c> BEFORE e:000000000050 x then LREM lp:<c> 1 x (replies checked to be
:101 and :1), so every list is back to 100 elements after each pipeline.

Usage: bench/collections_throughput.py [--rounds 3] [--requests 300000]
                                       [--servers redis,ruvio] [--rows LPUSH,HGET]
                                       [--no-write]
"""

import argparse
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from memory import _call, _resp, dbsize, load_pipelined  # noqa: E402

CLIENTS = 50
PIPELINE = 16
OTHER_CPU_LIMIT = 0.15  # CPUs' worth of foreign work during a test that voids the figure
KEYS = 10_000           # keys of the many-key rows (lists, hashes, sets)
PROBE_RAND = "000000000007"  # what the probe puts where redis-benchmark puts __rand_int__


def key(prefix, i):
    """The name redis-benchmark gives prefix + __rand_int__ (12 digits, zero padded)."""
    return b"%s%012d" % (prefix, i)


def call_int(port, *args):
    reply = _call(port, *args)
    if not reply.startswith(b":"):
        raise RuntimeError(f"{args!r} replied {reply!r}")
    return int(reply[1:-2])


def flush(port):
    reply = _call(port, b"FLUSHALL")
    if reply != b"+OK\r\n":
        raise RuntimeError(f"FLUSHALL replied {reply!r}")
    if dbsize(port) != 0:
        raise RuntimeError("FLUSHALL left keys")


def expect(what, got, want):
    if got != want:
        raise RuntimeError(f"{what}: {got}, expected {want}")


# ---- data sets: each loads one row's data into an empty server and checks its size ----

def lists(port, n, requests):
    load_pipelined(port, KEYS,
                   lambda i: _resp(b"RPUSH", key(b"list:", i),
                                   *[b"e:%012d" % j for j in range(n)]),
                   lambda i: b":%d\r\n" % n)
    expect("DBSIZE", dbsize(port), KEYS)
    expect("LLEN list:7", call_int(port, b"LLEN", key(b"list:", 7)), n)


def lists20(port, requests):
    lists(port, 20, requests)


def lists_for_lpop(port, requests):
    # Long enough that no list runs empty: the pops per list are ~Poisson(requests / KEYS);
    # the mean plus 6 standard deviations plus 10 is never reached over 10,000 lists.
    mean = requests / KEYS
    lists(port, max(20, math.ceil(mean + 6 * math.sqrt(mean) + 10)), requests)


def list100(port, requests):
    reply = _call(port, b"RPUSH", b"l100", *[b"e:%012d" % j for j in range(100)])
    expect("RPUSH l100", reply, b":100\r\n")
    expect("DBSIZE", dbsize(port), 1)


def hashes10(port, requests):
    load_pipelined(port, KEYS,
                   lambda i: _resp(b"HSET", key(b"hash:", i),
                                   *[x for j in range(10) for x in (b"f:%d" % j, b"v:%d" % j)]),
                   lambda i: b":10\r\n")
    expect("DBSIZE", dbsize(port), KEYS)
    expect("HLEN hash:7", call_int(port, b"HLEN", key(b"hash:", 7)), 10)


def sets10(port, requests):
    load_pipelined(port, KEYS,
                   lambda i: _resp(b"SADD", key(b"set:", i), *[key(b"m:", j) for j in range(10)]),
                   lambda i: b":10\r\n")
    expect("DBSIZE", dbsize(port), KEYS)
    expect("SCARD set:7", call_int(port, b"SCARD", key(b"set:", 7)), 10)


def members(port, cmd, name, n, item):
    """Adds n members to one key, 200 per command."""
    batch = 200
    load_pipelined(port, math.ceil(n / batch),
                   lambda b: _resp(cmd, name, *[x for j in range(b * batch, min(n, (b + 1) * batch))
                                                for x in item(j)]),
                   lambda b: b":%d\r\n" % (min(n, (b + 1) * batch) - b * batch))
    expect("DBSIZE", dbsize(port), 1)


def set1000(port, requests):
    members(port, b"SADD", b"s1000", 1000, lambda j: [key(b"m:", j)])
    expect("SCARD s1000", call_int(port, b"SCARD", b"s1000"), 1000)


def spop_set_size(requests):
    # The SPOP process sends requests // 2: the set can never run empty even if every SADD
    # were a duplicate. Non-integer members: a hashtable set in both servers.
    return max(100_000, requests // 2 + 10_000)


def spop_set(port, requests):
    n = spop_set_size(requests)
    members(port, b"SADD", b"sp", n, lambda j: [key(b"m:", j)])
    expect("SCARD sp", call_int(port, b"SCARD", b"sp"), n)


def zset1000(port, requests):
    members(port, b"ZADD", b"z1000", 1000, lambda j: [b"%d" % j, key(b"m:", j)])
    expect("ZCARD z1000", call_int(port, b"ZCARD", b"z1000"), 1000)


# ---- checks after the run: the data is still what the row says it measures ----

def still_keys(port, requests):
    expect("DBSIZE after", dbsize(port), KEYS)


def still_llen(n):
    def check(port, requests):
        expect("LLEN l100 after", call_int(port, b"LLEN", b"l100"), n)
    return check


class Pair(tuple):
    """A row command run by bench/pair_client.py: (cmd1, reply1, cmd2, reply2), `__client__`
    in the commands being the client's number."""


PAIR_CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pair_client.py")


def lists_per_client(port, requests):
    for c in range(CLIENTS):
        reply = _call(port, b"RPUSH", b"lp:%d" % c, *[b"e:%012d" % j for j in range(100)])
        expect(f"RPUSH lp:{c}", reply, b":100\r\n")
    expect("DBSIZE", dbsize(port), CLIENTS)


def lists_per_client_after(port, requests):
    expect("DBSIZE after", dbsize(port), CLIENTS)
    for c in range(CLIENTS):
        expect(f"LLEN lp:{c} after", call_int(port, b"LLEN", b"lp:%d" % c), 100)


def hlen10(port, requests):
    still_keys(port, requests)
    expect("HLEN hash:7 after", call_int(port, b"HLEN", key(b"hash:", 7)), 10)


def spop_after(port, requests):
    n = call_int(port, b"SCARD", b"sp")
    size = spop_set_size(requests)
    if not size - requests // 2 < n <= size + requests // 2:
        raise RuntimeError(f"SCARD sp after SPOP+SADD: {n}")


def zcard1000(port, requests):
    expect("ZCARD z1000 after", call_int(port, b"ZCARD", b"z1000"), 1000)


def scard1000(port, requests):
    expect("SCARD s1000 after", call_int(port, b"SCARD", b"s1000"), 1000)


# (row name, data set, [(keyspace -r, command...)] - two entries run at once, check after)
ROWS = [
    ("LPUSH", lists20, [(KEYS, "LPUSH list:__rand_int__ e:__rand_int__")], still_keys),
    ("LPOP", lists_for_lpop, [(KEYS, "LPOP list:__rand_int__")], still_keys),
    ("LRANGE 0 9 (20)", lists20, [(KEYS, "LRANGE list:__rand_int__ 0 9")], still_keys),
    ("LINDEX (20)", lists20, [(KEYS, "LINDEX list:__rand_int__ 10")], still_keys),
    ("LPOS (100)", list100, [(100, "LPOS l100 e:__rand_int__")], still_llen(100)),
    ("LSET (100)", list100, [(100, "LSET l100 50 x")], still_llen(100)),
    ("LINSERT+LREM (100)", lists_per_client,
     [(CLIENTS, Pair(("LINSERT lp:__client__ BEFORE e:000000000050 x", ":101",
                      "LREM lp:__client__ 1 x", ":1")))], lists_per_client_after),
    ("LMOVE rotate (100)", list100, [(100, "LMOVE l100 l100 LEFT RIGHT")], still_llen(100)),
    ("HSET (10 fields)", hashes10, [(KEYS, "HSET hash:__rand_int__ f:5 w")], hlen10),
    ("HGET (10 fields)", hashes10, [(KEYS, "HGET hash:__rand_int__ f:5")], hlen10),
    ("HMGET 3 (10 fields)", hashes10, [(KEYS, "HMGET hash:__rand_int__ f:1 f:5 f:9")], hlen10),
    ("HGETALL (10 fields)", hashes10, [(KEYS, "HGETALL hash:__rand_int__")], hlen10),
    ("SADD", sets10, [(KEYS, "SADD set:__rand_int__ m:__rand_int__")], still_keys),
    ("SISMEMBER (1000)", set1000, [(1000, "SISMEMBER s1000 m:__rand_int__")], scard1000),
    ("SRANDMEMBER (1000)", set1000, [(1000, "SRANDMEMBER s1000")], scard1000),
    ("SPOP+SADD", spop_set, [(1, "SPOP sp"), (100_000_000, "SADD sp m:__rand_int__")],
     spop_after),
    ("ZADD (1000)", zset1000, [(1000, "ZADD z1000 __rand_int__ m:__rand_int__")], zcard1000),
    ("ZINCRBY (1000)", zset1000, [(1000, "ZINCRBY z1000 1 m:__rand_int__")], zcard1000),
    ("ZSCORE (1000)", zset1000, [(1000, "ZSCORE z1000 m:__rand_int__")], zcard1000),
    ("ZRANK (1000)", zset1000, [(1000, "ZRANK z1000 m:__rand_int__")], zcard1000),
    ("ZRANGE 0 9 WITHSCORES (1000)", zset1000,
     [(1000, "ZRANGE z1000 0 9 WITHSCORES")], zcard1000),
]


def bench_command(port, requests, keyspace, command, clients):
    if isinstance(command, Pair):
        return ["taskset", "-c", common.CLIENT_CPU, "/usr/bin/python3", PAIR_CLIENT, "-p",
                str(port), "-c", str(clients), "-P", str(PIPELINE), "-n", str(requests),
                "--reply1", command[1], "--reply2", command[3], command[0], command[2]]
    return ["taskset", "-c", common.CLIENT_CPU, "redis-benchmark", "-p", str(port),
            "-c", str(clients), "-P", str(PIPELINE), "-n", str(requests), "-r", str(keyspace),
            "--csv", *command.split()]


def row_commands(port, requests, cmds):
    """One redis-benchmark command line per entry; two entries share clients and requests."""
    return [bench_command(port, requests // len(cmds), r, c, CLIENTS // len(cmds))
            for r, c in cmds]


def probe(port, command):
    """The reply type of one request of `command` (redis-cli --no-raw's formatting)."""
    args = command.replace("__rand_int__", PROBE_RAND).replace("__client__", "7").split()
    out = subprocess.run(["redis-cli", "--no-raw", "-p", str(port), *args], check=True,
                         capture_output=True, text=True).stdout.strip()
    if out.startswith("(error)"):
        return "error: " + out
    for prefix, kind in (("(integer)", "integer"), ("(nil)", "nil"), ("(empty", "empty array"),
                         ("1)", "array"), ('"', "bulk")):
        if out.startswith(prefix):
            return kind
    return "status"


def run_test(port, pid, requests, cmds):
    """Server CPU µs per request, req/s, and the other processes' CPU use during the test."""
    lines = row_commands(port, requests, cmds)
    ns0, cli0, sys0 = common.server_cpu_ns(pid), common.children_cpu_seconds(), common.system_busy_seconds()
    t0 = time.monotonic()
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for c in lines]
    outs = [p.communicate() for p in procs]
    wall = time.monotonic() - t0
    ns = common.server_cpu_ns(pid) - ns0
    other = (common.system_busy_seconds() - sys0 - ns / 1e9 - (common.children_cpu_seconds() - cli0)) / wall
    rps = 0.0
    for p, (out, err) in zip(procs, outs):
        if p.returncode != 0 or "error" in (out + err).lower():
            raise RuntimeError(f"benchmark client failed or saw errors:\n{out}\n{err}")
        rows = common.benchmark_rows(out)
        if len(rows) != 1:
            raise RuntimeError(f"unexpected redis-benchmark output:\n{out}")
        rps += float(rows[0][1])
    sent = sum(requests // len(cmds) for _ in cmds)
    return (round(ns / 1e3 / sent, 4), rps, round(ns / 1e9 / wall, 3),
            round(max(other, 0.0), 3))


def run_server(kind, requests, rows):
    srv, pid = common.start(kind)
    try:
        out = {}
        for name, load, cmds, after in rows:
            flush(srv.port)
            try:
                load(srv.port, requests)
            except RuntimeError as e:
                if "unknown command" not in str(e):
                    raise
                # A type this build does not have yet: recorded, not measured.
                out[name] = {"unsupported": str(e)[:200]}
                print(f"  {kind:5} {name:28} not supported by this build", file=sys.stderr)
                continue
            # A pair's two halves in order (LINSERT then LREM: the data is unchanged).
            probes = [probe(srv.port, c) for _, cmd in cmds
                      for c in (cmd[::2] if isinstance(cmd, Pair) else [cmd])]
            if any(p.startswith("error") for p in probes):
                raise RuntimeError(f"{kind} {name}: probe replied {probes}")
            load_and_probe_changed = name.startswith(("LPOP", "SPOP"))
            if load_and_probe_changed:  # the probe took one element: load afresh
                flush(srv.port)
                load(srv.port, requests)
            us, rps, util, other = run_test(srv.port, pid, requests, cmds)
            after(srv.port, requests)
            out[name] = {"server_us_per_request": us, "rps": rps, "server_cpu": util,
                         "other_cpu": other, "probe_reply": probes}
            print(f"  {kind:5} {name:28} {us:7.3f} µs/req {rps:12,.0f} req/s  server CPU "
                  f"{util:.2f}  other CPU {other:.2f}", file=sys.stderr, flush=True)
        if srv.proc.poll() is not None:
            raise RuntimeError(f"{kind} exited during the run")
        return out, common.cpus_allowed(pid)
    finally:
        srv.stop()


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def measure_and_report(servers, rounds_n, requests, rows):
    """Runs `rows` on each server kind for `rounds_n` rounds (fresh server per round and kind,
    the order alternating), prints the table of medians and the warnings (probe reply types
    that differ, foreign CPU load), and returns the figures for the result file. Every
    side-by-side throughput bench (this one, bits.py, streams.py) goes through here."""
    load_before = loadavg()
    rounds, pinned = [], {}
    for rnd in range(rounds_n):
        order = servers if rnd % 2 == 0 else list(reversed(servers))
        print(f"round {rnd + 1}/{rounds_n}: {' then '.join(order)}  (load {loadavg()})",
              file=sys.stderr)
        this = {"order": order}
        for kind in order:
            this[kind], pinned[kind] = run_server(kind, requests, rows)
        rounds.append(this)
    load_after = loadavg()

    def fig(x, f):
        return "n/a" if x is None else format(x, f)

    mismatched = []
    medians = {}
    table = []
    for name, _, cmds, _ in rows:
        measured = {k: [r[k][name] for r in rounds if "unsupported" not in r[k][name]]
                    for k in servers}
        us = {k: common.median([m["server_us_per_request"] for m in measured[k]])
              for k in servers}
        rps = {k: common.median([m["rps"] for m in measured[k]]) for k in servers}
        row = {"server_us_per_request": us, "rps": rps}
        cpu_ratio = rps_ratio = None
        if us.get("redis") and us.get("ruvio"):
            cpu_ratio = row["ratio_cpu_ruvio_over_redis"] = round(us["ruvio"] / us["redis"], 3)
            rps_ratio = row["ratio_rps_ruvio_over_redis"] = round(rps["ruvio"] / rps["redis"], 3)
            types = {k: measured[k][0]["probe_reply"] for k in servers}
            if types["redis"] != types["ruvio"]:
                mismatched.append(f"{name}: {types}")
        medians[name] = row
        table.append([name] + [fig(us[k], ".3f") for k in servers] +
                     ([fig(cpu_ratio, ".2f")] if len(servers) > 1 else []) +
                     [fig(rps[k], ",.0f") for k in servers] +
                     ([fig(rps_ratio, ".2f")] if len(servers) > 1 else []))
    headers = ["test"] + [f"{k} µs/req" for k in servers] + (
        ["CPU Ruvio/Redis"] if len(servers) > 1 else []) + [f"{k} req/s" for k in servers] + (
        ["req/s Ruvio/Redis"] if len(servers) > 1 else [])
    print(common.table(headers, table))
    print(f"load average before {load_before}, after {load_after}")
    for m in mismatched:
        print(f"WARNING: probe reply types differ: {m}")
    others = [m["other_cpu"] for r in rounds for k in servers for m in r[k].values()
              if "other_cpu" in m]
    busy = sum(1 for o in others if o > OTHER_CPU_LIMIT)
    if busy:
        print(f"WARNING: {busy} of {len(others)} tests ran while other processes used more "
              f"than {OTHER_CPU_LIMIT:.2f} CPU (max {max(others):.2f}): the machine was "
              f"busy, these figures are not reliable; run again when it is idle.")
    return {"server_cpus_allowed": pinned,
            "load_average_before": load_before, "load_average_after": load_after,
            "tests_with_foreign_cpu_load": busy, "max_other_cpu": max(others),
            "probe_type_mismatches": mismatched, "medians": medians, "samples": rounds}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=300_000)
    ap.add_argument("--servers", default=None,
                    help="comma list of redis,ruvio (default: both; redis only if Ruvio "
                         "is not built)")
    ap.add_argument("--rows", default=None, help="comma list of row-name prefixes")
    ap.add_argument("--no-write", action="store_true", help="print only, no results file")
    ap.add_argument("--result-name", default="collections-throughput",
                    help="results file: bench/results/DATE-NAME.json")
    ap.add_argument("--ruvio-source", default=None,
                    help="which source the Ruvio build was made from, when it is not this "
                         "tree's (recorded in the result; RUVIO_BUILD names the build)")
    a = ap.parse_args()
    common.need("redis-benchmark")
    common.need("redis-cli")
    servers = a.servers.split(",") if a.servers else (
        ["redis", "ruvio"] if common.ruvio_available() else ["redis"])
    if "ruvio" not in servers:
        print("note: Ruvio not measured (not built or not asked for)", file=sys.stderr)
    rows = ROWS if not a.rows else [r for r in ROWS
                                    if any(r[0].startswith(p) for p in a.rows.split(","))]

    summary = measure_and_report(servers, a.rounds, a.requests, rows)
    if not a.no_write:
        path = common.write_result(a.result_name, {
            "ruvio_source": a.ruvio_source or "this tree (git_commit)",
            "servers": {k: common.server_command(k) for k in servers},
            "client": f"taskset -c {common.CLIENT_CPU} redis-benchmark",
            "commands": {name: [" ".join(c) for c in row_commands("PORT", a.requests, cmds)]
                         for name, _, cmds, _ in rows},
            "data": {name: load.__name__ for name, load, _, _ in rows},
            "rounds": a.rounds, "requests_per_test": a.requests, "clients": CLIENTS,
            "pipeline": PIPELINE, "keys": KEYS, "spop_set_members": spop_set_size(a.requests),
            "method": "fresh server per round and kind; servers run one after the other; "
                      "order alternates per round; per row FLUSHALL, load, size checks, one "
                      "redis-cli probe per command, the benchmark, checks after; "
                      "server_us_per_request = delta of the summed first schedstat field "
                      "over /proc/PID/task/* / requests; figure = median over rounds; "
                      "target (reported, not asserted): Ruvio CPU per request <= 0.8x Redis",
            **summary})
        print(f"wrote {os.path.relpath(path, common.ROOT)}")


if __name__ == "__main__":
    main()
