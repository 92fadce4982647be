#!/usr/bin/python3
"""The cost of ACL checks: GET and SET as the default user (every permission: the executor's
one flag test) and as a user restricted to the key pattern ~app:* (+@all, so each request
pays the command-bitmap test and one glob per key), Ruvio against Debian's redis-server
7.0.15 in the same run, with bench/collections_throughput.py's method and code: a fresh pinned
server per round and kind, the data loaded and checked, one redis-cli probe per row,
redis-benchmark (50 clients, pipeline 16; --user/-a for the restricted rows), server CPU µs
per request from schedstat as the primary figure, req/s beside it, foreign CPU recorded.

Rows:
  GET default / GET app-user    GET app:key:__rand_int__ over 10,000 string keys
  SET default / SET app-user    SET app:key:__rand_int__ value

Usage: bench/acl.py [--rounds 3] [--requests 300000] [--servers redis,ruvio] [--no-write]
Writes bench/results/<date>-acl.json.
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collections_throughput as ct  # noqa: E402
from memory import _call, _resp, load_pipelined  # noqa: E402

USER, PASS = "app", "app-secret"
AS_USER = "as-app-user "  # marks a row's command: redis-benchmark/redis-cli log in as USER


def strings(port, requests):
    reply = _call(port, b"ACL", b"SETUSER", USER.encode(), b"on", b">" + PASS.encode(),
                  b"~app:*", b"+@all")
    ct.expect("ACL SETUSER", reply, b"+OK\r\n")
    load_pipelined(port, ct.KEYS, lambda i: _resp(b"SET", ct.key(b"app:key:", i), b"value"),
                   lambda i: b"+OK\r\n")


def still_loaded(port, requests):
    ct.expect("DBSIZE", ct.dbsize(port), ct.KEYS)
    reply = _call(port, b"ACL", b"DRYRUN", USER.encode(), b"GET", b"other")
    ct.expect("ACL DRYRUN", reply,
              b"$54\r\nThis user has no permissions to access the 'other' key\r\n")


ROWS = [
    ("GET default", strings, [(ct.KEYS, "GET app:key:__rand_int__")], still_loaded),
    ("GET app-user (~app:*)", strings, [(ct.KEYS, AS_USER + "GET app:key:__rand_int__")],
     still_loaded),
    ("SET default", strings, [(ct.KEYS, "SET app:key:__rand_int__ value")], still_loaded),
    ("SET app-user (~app:*)", strings, [(ct.KEYS, AS_USER + "SET app:key:__rand_int__ value")],
     still_loaded),
]

_bench_command = ct.bench_command


def bench_command(port, requests, keyspace, command, clients):
    if isinstance(command, str) and command.startswith(AS_USER):
        cmd = _bench_command(port, requests, keyspace, command[len(AS_USER):], clients)
        at = cmd.index("redis-benchmark") + 1
        return cmd[:at] + ["--user", USER, "-a", PASS] + cmd[at:]
    return _bench_command(port, requests, keyspace, command, clients)


def probe(port, command):
    if not command.startswith(AS_USER):
        return _probe(port, command)
    args = command[len(AS_USER):].replace("__rand_int__", ct.PROBE_RAND).split()
    out = subprocess.run(["redis-cli", "--no-raw", "--user", USER, "--pass", PASS, "-p",
                          str(port), *args], check=True, capture_output=True,
                         text=True).stdout.strip()
    return "error: " + out if out.startswith("(error)") else (
        "bulk" if out.startswith('"') else "status")


_probe = ct.probe

if __name__ == "__main__":
    ct.ROWS = ROWS
    ct.bench_command = bench_command
    ct.probe = probe
    if "--result-name" not in sys.argv:
        sys.argv += ["--result-name", "acl"]
    ct.main()
