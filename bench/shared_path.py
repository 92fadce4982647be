#!/usr/bin/python3
"""PING, GET and SET, Ruvio against Debian's redis-server 7.0.15 in the same run: the shared
request path (read, parse, dispatch, reply, write) whose kernel side bench/instructions.py
--syscalls counts. collections_throughput.py's method and machinery with these rows: fresh
server per round and kind, one after the other, the server on CPU 1 and redis-benchmark on
CPU 0, 50 clients, pipeline 16; per row FLUSHALL, the load with every reply checked, a probe,
the benchmark, a check after. Primary figure: the server's on-CPU time per request (summed
schedstat of its threads); req/s beside it; medians over the rounds; foreign CPU recorded.

  PING_MBULK   no data
  GET          100,000 keys key:<12 digits> of 3 bytes (redis-benchmark's own SET value)
  SET          the same keyspace, SET key:__rand_int__ xxx over the loaded keys

Usage: bench/shared_path.py [collections_throughput.py's options]
Writes bench/results/<date>-shared-path.json (--result-name to change it).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collections_throughput as ct  # noqa: E402
from memory import _resp, dbsize, load_pipelined  # noqa: E402

KEYS = 100_000


def nothing(port, requests):
    pass


def strings(port, requests):
    load_pipelined(port, KEYS, lambda i: _resp(b"SET", ct.key(b"key:", i), b"xxx"),
                   lambda i: b"+OK\r\n")
    ct.expect("DBSIZE", dbsize(port), KEYS)


def still_strings(port, requests):
    ct.expect("DBSIZE after", dbsize(port), KEYS)


ROWS = [
    ("PING", nothing, [(1, "PING")], nothing),
    ("GET", strings, [(KEYS, "GET key:__rand_int__")], still_strings),
    ("SET", strings, [(KEYS, "SET key:__rand_int__ xxx")], still_strings),
]


def main():
    ct.ROWS = ROWS
    if "--result-name" not in sys.argv:
        sys.argv += ["--result-name", "shared-path"]
    ct.main()


if __name__ == "__main__":
    main()
