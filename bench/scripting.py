#!/usr/bin/python3
"""Scripting throughput, Ruvio against Debian's redis-server 7.0.15 in the same run (the
scripting issue's rows), with bench/collections_throughput.py's method and code: a fresh
pinned server per round and kind, the row's data loaded and checked, one redis-cli probe,
redis-benchmark (50 clients, pipeline 16), server CPU µs per request from schedstat as the
primary figure, req/s beside it, foreign CPU recorded per test.

Rows:
  EVALSHA return 1           EVALSHA <sha of "return 1"> 0
  EVALSHA GET                EVALSHA <sha of "return redis.call('GET', KEYS[1])"> 1 key:<r>
                             over 10,000 string keys
  EVALSHA lock release       redis-py's Lock release script (LUA_RELEASE_SCRIPT) on 10,000
                             keys holding another token, so every call reads and keeps the key
  EVAL return(1) (cached)    EVAL with the script text: the SHA1 of the body is computed and
                             looked up on every call (redis-benchmark splits arguments on
                             spaces, hence a body without any)
  FCALL INCR                 FCALL of a function doing INCR (redis.register_function's
                             positional form) on 10,000 counters that exist, so every call
                             is one INCR of an integer and the key count stays put

Usage: bench/scripting.py [--rounds 3] [--requests 300000] [--servers redis,ruvio]
                          [--rows EVALSHA] [--no-write]
Writes bench/results/<date>-scripting.json.
"""

import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collections_throughput as ct  # noqa: E402
from memory import _call, _resp, load_pipelined  # noqa: E402

RET1 = "return 1"
GET = "return redis.call('GET', KEYS[1])"
# redis-py 4.3's Lock.LUA_RELEASE_SCRIPT, byte for byte.
RELEASE = ("\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= "
           "ARGV[1] then\n            return 0\n        end\n        redis.call('del', KEYS[1])"
           "\n        return 1\n    ")


def sha(body):
    return hashlib.sha1(body.encode()).hexdigest()


def load_scripts(port, requests):
    for body in (RET1, GET, RELEASE):
        reply = _call(port, b"SCRIPT", b"LOAD", body.encode())
        ct.expect("SCRIPT LOAD", reply, b"$40\r\n" + sha(body).encode() + b"\r\n")


def strings(port, requests):
    load_scripts(port, requests)
    load_pipelined(port, ct.KEYS, lambda i: _resp(b"SET", ct.key(b"key:", i), b"value"),
                   lambda i: b"+OK\r\n")
    load_pipelined(port, ct.KEYS, lambda i: _resp(b"SET", ct.key(b"lock:", i), b"other-token"),
                   lambda i: b"+OK\r\n")


INCR_LIB = ("#!lua name=bench\nredis.register_function('incr', function(keys) "
            "return redis.call('INCR', keys[1]) end)\n")


def counters(port, requests):
    reply = _call(port, b"FUNCTION", b"LOAD", b"REPLACE", INCR_LIB.encode())
    ct.expect("FUNCTION LOAD", reply, b"$5\r\nbench\r\n")
    load_pipelined(port, ct.KEYS, lambda i: _resp(b"SET", ct.key(b"counter:", i), b"0"),
                   lambda i: b"+OK\r\n")


def counters_loaded(port, requests):
    ct.expect("DBSIZE", ct.dbsize(port), ct.KEYS)
    reply = _call(port, b"FCALL", b"incr", b"1", b"counter:000000000042")
    if not reply.startswith(b":"):
        raise SystemExit(f"FCALL incr answered {reply!r}")


def still_loaded(port, requests):
    ct.expect("DBSIZE", ct.dbsize(port), 2 * ct.KEYS)
    reply = _call(port, b"SCRIPT", b"EXISTS", sha(RET1).encode(), sha(GET).encode(),
                  sha(RELEASE).encode())
    ct.expect("SCRIPT EXISTS", reply, b"*3\r\n:1\r\n:1\r\n:1\r\n")


ROWS = [
    ("EVALSHA return 1", strings, [(ct.KEYS, f"EVALSHA {sha(RET1)} 0")], still_loaded),
    ("EVALSHA GET", strings, [(ct.KEYS, f"EVALSHA {sha(GET)} 1 key:__rand_int__")],
     still_loaded),
    ("EVALSHA lock release", strings,
     [(ct.KEYS, f"EVALSHA {sha(RELEASE)} 1 lock:__rand_int__ my-token")], still_loaded),
    ("EVAL return(1) (cached)", strings, [(ct.KEYS, "EVAL return(1) 0")], still_loaded),
    ("FCALL INCR", counters, [(ct.KEYS, "FCALL incr 1 counter:__rand_int__")],
     counters_loaded),
]

if __name__ == "__main__":
    ct.ROWS = ROWS
    if "--result-name" not in sys.argv:
        sys.argv += ["--result-name", "scripting"]
    ct.main()
