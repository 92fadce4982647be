#!/usr/bin/python3
"""Geo throughput and memory, Ruvio against Debian's redis-server 7.0.15 in the same run
(issue 10's geo rows).

Throughput: bench/collections_throughput.py's method and code, on geo rows (fresh servers
per round, one after the other, order alternating; server pinned to CPU 1, redis-benchmark
on CPU 0; 50 clients, pipeline 16; per row FLUSHALL, load, size check, one probe per
command whose reply type must match redis-server's, the benchmark, checks after). The
primary figure is the server's on-CPU time per request from /proc/PID/task/*/schedstat,
req/s beside it, medians over the rounds; foreign CPU use is recorded per test.

  GEOADD        GEOADD geo1000 13.__rand_int__ 38.__rand_int__ m:__rand_int__ (-r 1000: moves
                members of the 1,000-point index around a 1 km square; ZCARD stays 1,000)
  GEOSEARCH     GEOSEARCH geo1000 FROMMEMBER m:__rand_int__ BYRADIUS 50 km COUNT 10 over
                1,000 points spread uniformly over 2 x 2 degrees around 13.5, 38.5 (Sicily):
                ~200 points in the circle, the 10 nearest sorted
  GEODIST       GEODIST geo1000 m:__rand_int__ m:__rand_int__ km

Memory: bench/collections_memory.py's method (a fresh server per data set and kind, VmRSS of
the measured process — Ruvio's worker — before and 1 s after the load, DBSIZE checked):

  geo100k       one key of 100,000 points: GEOADD geo lon lat m:<i> ... (100 a command)

Usage: bench/geo.py [--rounds 3] [--requests 300000] [--servers redis,ruvio] [--no-memory]
                    [--no-throughput] [--no-write]
Writes bench/results/<date>-geo-throughput.json and <date>-geo-memory.json.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collections_throughput as ct  # noqa: E402
import collections_memory as cm  # noqa: E402
import common  # noqa: E402
from memory import _resp, load_pipelined  # noqa: E402

POINTS = 1000
MEMORY_POINTS = 100_000
MEMORY_BATCH = 100


def sicily(j, rng):
    """The j-th point of the index: uniform over 12.5..14.5 E, 37.5..39.5 N (seeded)."""
    return b"%.6f" % rng.uniform(12.5, 14.5), b"%.6f" % rng.uniform(37.5, 39.5)


def geo1000(port, requests):
    rng = random.Random(1000)
    items = []
    for j in range(POINTS):
        lon, lat = sicily(j, rng)
        items.append([lon, lat, ct.key(b"m:", j)])
    batch = 200
    load_pipelined(port, POINTS // batch,
                   lambda b: _resp(b"GEOADD", b"geo1000",
                                   *[x for it in items[b * batch:(b + 1) * batch] for x in it]),
                   lambda b: b":%d\r\n" % batch)
    ct.expect("DBSIZE", ct.dbsize(port), 1)
    ct.expect("ZCARD geo1000", ct.call_int(port, b"ZCARD", b"geo1000"), POINTS)


def zcard_geo1000(port, requests):
    ct.expect("ZCARD geo1000 after", ct.call_int(port, b"ZCARD", b"geo1000"), POINTS)


GEO_ROWS = [
    ("GEOADD (1000)", geo1000,
     [(POINTS, "GEOADD geo1000 13.__rand_int__ 38.__rand_int__ m:__rand_int__")], zcard_geo1000),
    ("GEOSEARCH 50 km COUNT 10 (1000)", geo1000,
     [(POINTS, "GEOSEARCH geo1000 FROMMEMBER m:__rand_int__ BYRADIUS 50 km COUNT 10")],
     zcard_geo1000),
    ("GEODIST (1000)", geo1000, [(POINTS, "GEODIST geo1000 m:__rand_int__ m:__rand_int__ km")],
     zcard_geo1000),
]


def load_geo100k(port):
    rng = random.Random(100_000)

    def make(j):
        args = [b"GEOADD", b"geo"]
        for i in range(j * MEMORY_BATCH, (j + 1) * MEMORY_BATCH):
            args += [b"%.6f" % rng.uniform(-180, 180), b"%.6f" % rng.uniform(-85, 85),
                     b"m:%d" % i]
        return _resp(*args)

    load_pipelined(port, MEMORY_POINTS // MEMORY_BATCH, make,
                   lambda j: b":%d\r\n" % MEMORY_BATCH)
    return 1


def memory(servers, write):
    cm.SETS["geo100k"] = ("zset", load_geo100k, 1, b"geo", MEMORY_POINTS, cm.BOTH,
                          "GEOADD geo <lon> <lat> m:<i> ... (100 points a command, uniform "
                          "over lon -180..180, lat -85..85, seeded) for i < 100,000, "
                          "pipeline 200; every reply :100; DBSIZE 1")
    sys.argv = [sys.argv[0], "--sets", "geo100k", "--servers", ",".join(servers),
                "--out", "geo-memory"] + ([] if write else ["--no-write"])
    cm.main()


def throughput(a, servers):
    ct.ROWS = GEO_ROWS
    sys.argv = [sys.argv[0], "--rounds", str(a.rounds), "--requests", str(a.requests),
                "--servers", ",".join(servers), "--result-name", "geo-throughput"] + (
        ["--no-write"] if a.no_write else [])
    ct.main()


def main():
    ap = common.against_redis_parser(__doc__)
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--no-throughput", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    servers = a.servers.split(",")
    if not a.no_throughput:
        throughput(a, servers)
    if not a.no_memory:
        memory(servers, not a.no_write)


if __name__ == "__main__":
    main()
