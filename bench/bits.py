#!/usr/bin/python3
"""Bitmaps, BITFIELD and HyperLogLog: throughput and memory, Ruvio against Debian's
redis-server 7.0.15 in the same run (the bitmap/HLL rows of issue 10).

Throughput (`bench/bits.py throughput`) is collections_throughput.py's method and machinery
with this file's rows: fresh server per round and kind, one after the other, the server on
CPU 1 and redis-benchmark on CPU 0, 50 clients, pipeline 16; per row FLUSHALL, the load with
every reply checked, a probe, the benchmark, a check after. Primary figure: the server's
on-CPU time per request (summed schedstat of its threads); req/s beside it; medians over
the rounds; foreign CPU recorded per test. redis-benchmark's __rand_int__ is a zero-padded
12-digit number, which a bit offset may not be (string2ll refuses leading zeros), so the
random part is the key and the offsets are fixed, unaligned where it matters:

  SETBIT / GETBIT      10,000 bitmaps of 1 KiB (bm:<key>), bit 5001
  BITCOUNT             the same bitmaps, whole string
  BITFIELD INCRBY u8   10,000 keys of 16 bytes (bf:<key>), INCRBY u8 #3 1 (WRAP)
  BITFIELD GET u8      the same keys, GET u8 #3
  PFADD                1,000 HLLs of 1,000 elements (sparse), a random new element each
  PFCOUNT (cached)     the same HLLs, their cache valid
  PFCOUNT 3 keys       the union of 3 of those HLLs ({h} tagged)

Memory (`bench/bits.py memory`) is collections_zset.py's method: a fresh server per data set,
VmRSS of the measured process (Ruvio: its worker) 0.5 s after start and 1 s after the load,
DBSIZE checked; KiB above idle and the ratio.

  bitmaps128   20,000 bitmaps of 128 bytes: SETBIT bm:<i> 1023 1, then 3 more bits below
  bitfield16   100,000 u16 counters, one per key: BITFIELD c:<i> INCRBY u16 0 <i % 1000 + 1>
  hll100       5,000 HLLs of 100 elements: PFADD h:<i> e:<i>:0 .. e:<i>:99 (sparse)
  hll1000      the PFCOUNT rows' 1,000 HLLs of 1,000 elements (sparse, ~2 KB each; not in the
               default --sets)

Usage: bench/bits.py throughput [collections_throughput.py's options]
       bench/bits.py memory [--sets bitmaps128,bitfield16,hll100] [--servers redis,ruvio]
Writes bench/results/<date>-bits-throughput.json / <date>-bits-memory.json.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collections_throughput as ct  # noqa: E402
import common  # noqa: E402
from memory import _call, _resp, dbsize, load_pipelined, measure_rss  # noqa: E402

KEYS = ct.KEYS  # 10,000
HLLS = 1_000
HLL_ELEMS = 1_000


def bitmaps_1k(port, requests):
    # BITFIELD SET u8 #1023 makes a 1024-byte string; a bit pattern so BITCOUNT has work.
    def make(i):
        return _resp(b"BITFIELD", ct.key(b"bm:", i), b"SET", b"u8", b"#1023", b"%d" % (i & 255),
                     b"SET", b"u32", b"#17", b"%d" % (i * 2654435761 & 0xFFFFFFFF))
    load_pipelined(port, KEYS, make, lambda i: b"*2\r\n:0\r\n:0\r\n")
    ct.expect("DBSIZE", dbsize(port), KEYS)
    ct.expect("STRLEN bm:7", ct.call_int(port, b"STRLEN", ct.key(b"bm:", 7)), 1024)


def counters_16(port, requests):
    load_pipelined(port, KEYS,
                   lambda i: _resp(b"BITFIELD", ct.key(b"bf:", i), b"SET", b"u8", b"#15", b"1"),
                   lambda i: b"*1\r\n:0\r\n")
    ct.expect("DBSIZE", dbsize(port), KEYS)
    ct.expect("STRLEN bf:7", ct.call_int(port, b"STRLEN", ct.key(b"bf:", 7)), 16)


def hll_keys(port, requests, prefix=b"hll:", n=HLLS):
    batch = 200
    for i in range(n):
        k = ct.key(prefix, i) if prefix else [b"{h}a", b"{h}b", b"{h}c"][i]
        load_pipelined(port, HLL_ELEMS // batch,
                       lambda b: _resp(b"PFADD", k, *[b"e:%d:%d" % (i, j) for j in
                                                      range(b * batch, (b + 1) * batch)]),
                       lambda b: b":1\r\n")
        ct.call_int(port, b"PFCOUNT", k)  # the cache valid, as the PFCOUNT row measures it
    ct.expect("DBSIZE", dbsize(port), n)


def hlls(port, requests):
    hll_keys(port, requests)
    enc = _call(port, b"PFDEBUG", b"ENCODING", ct.key(b"hll:", 7))
    ct.expect("PFDEBUG ENCODING hll:7", enc, b"+sparse\r\n")


def hll3(port, requests):
    hll_keys(port, requests, prefix=None, n=3)


def still_keys(port, requests):
    ct.expect("DBSIZE after", dbsize(port), KEYS)


def still_hlls(port, requests):
    ct.expect("DBSIZE after", dbsize(port), HLLS)
    enc = _call(port, b"PFDEBUG", b"ENCODING", ct.key(b"hll:", 7))
    ct.expect("PFDEBUG ENCODING hll:7 after", enc, b"+sparse\r\n")


def still_hll3(port, requests):
    ct.expect("DBSIZE after", dbsize(port), 3)


ROWS = [
    ("SETBIT (1 KiB)", bitmaps_1k, [(KEYS, "SETBIT bm:__rand_int__ 5001 1")], still_keys),
    ("GETBIT (1 KiB)", bitmaps_1k, [(KEYS, "GETBIT bm:__rand_int__ 5001")], still_keys),
    ("BITCOUNT (1 KiB)", bitmaps_1k, [(KEYS, "BITCOUNT bm:__rand_int__")], still_keys),
    ("BITFIELD INCRBY u8", counters_16, [(KEYS, "BITFIELD bf:__rand_int__ INCRBY u8 #3 1")],
     still_keys),
    ("BITFIELD GET u8", counters_16, [(KEYS, "BITFIELD bf:__rand_int__ GET u8 #3")],
     still_keys),
    ("PFADD (HLL of 1000)", hlls, [(HLLS, "PFADD hll:__rand_int__ x:__rand_int__")],
     still_hlls),
    ("PFCOUNT (cached)", hlls, [(HLLS, "PFCOUNT hll:__rand_int__")], still_hlls),
    ("PFCOUNT 3 keys", hll3, [(1, "PFCOUNT {h}a {h}b {h}c")], still_hll3),
]


# ---- memory --------------------------------------------------------------------------------

def mem_bitmaps128(port):
    n = 20_000
    load_pipelined(port, n, lambda i: _resp(b"SETBIT", b"bm:%d" % i, b"1023", b"1"),
                   lambda i: b":0\r\n")
    for bit in (5, 300, 777):
        load_pipelined(port, n, lambda i: _resp(b"SETBIT", b"bm:%d" % i, b"%d" % bit, b"1"),
                       lambda i: b":0\r\n")
    ct.expect("STRLEN bm:7", ct.call_int(port, b"STRLEN", b"bm:7"), 128)
    return n


def mem_bitfield16(port):
    n = 100_000
    load_pipelined(port, n, lambda i: _resp(b"BITFIELD", b"c:%d" % i, b"INCRBY", b"u16", b"0",
                                            b"%d" % (i % 1000 + 1)),
                   lambda i: b"*1\r\n:%d\r\n" % (i % 1000 + 1))
    return n


def mem_hll100(port):
    n = 5_000
    load_pipelined(port, n, lambda i: _resp(b"PFADD", b"h:%d" % i,
                                            *[b"e:%d:%d" % (i, j) for j in range(100)]),
                   lambda i: b":1\r\n")
    ct.expect("PFDEBUG ENCODING h:7", _call(port, b"PFDEBUG", b"ENCODING", b"h:7"),
              b"+sparse\r\n")
    return n


def mem_hll1000(port):
    hll_keys(port, 0)  # the PFCOUNT (cached) row's data set: HLLS HLLs of HLL_ELEMS elements
    ct.expect("PFDEBUG ENCODING hll:7", _call(port, b"PFDEBUG", b"ENCODING", ct.key(b"hll:", 7)),
              b"+sparse\r\n")
    return HLLS


SETS = {
    "bitmaps128": (mem_bitmaps128, "SETBIT bm:<i> 1023 1 for i < 20,000, then SETBIT of bits "
                                   "5, 300, 777 on each (pipeline 200, every reply :0); "
                                   "STRLEN 128; DBSIZE 20,000"),
    "bitfield16": (mem_bitfield16, "BITFIELD c:<i> INCRBY u16 0 <i%1000+1> for i < 100,000 "
                                   "(pipeline 200, every reply checked); DBSIZE 100,000"),
    "hll100": (mem_hll100, "PFADD h:<i> e:<i>:0 .. e:<i>:99 for i < 5,000 (pipeline 200, every "
                           "reply :1); PFDEBUG ENCODING sparse; DBSIZE 5,000"),
    "hll1000": (mem_hll1000, "the PFCOUNT (cached) row's data: PFADD hll:<i> e:<i>:0 .. "
                             "e:<i>:999 for i < 1,000 (batches of 200 elements, every reply "
                             ":1), PFCOUNT each; PFDEBUG ENCODING sparse; DBSIZE 1,000"),
}


def measure(kind, name):
    return measure_rss(kind, name, SETS[name][0])


def memory_main(argv):
    ap = argparse.ArgumentParser(prog="bench/bits.py memory")
    ap.add_argument("--sets", default="bitmaps128,bitfield16,hll100")
    ap.add_argument("--servers", default="redis,ruvio")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args(argv)
    servers = a.servers.split(",")
    os.sched_setaffinity(0, {int(common.CLIENT_CPU)})
    results = common.compare_memory({n: SETS[n] for n in a.sets.split(",")}, servers,
                                    measure, per_key=True)
    if not a.no_write:
        path = common.write_result("bits-memory", {
            "servers": {k: common.server_command(k) for k in servers},
            "command": "bench/bits.py memory " + " ".join(argv),
            "rss_method": "VmRSS from /proc/<pid>/status 0.5 s after start (idle) and 1 s after "
                          "the load and the DBSIZE check (loaded); Ruvio: the worker process",
            "target": "Ruvio RSS above idle <= 0.8x Redis's (reported, not asserted)",
            "sets": results})
        print(f"wrote {os.path.relpath(path, common.ROOT)}")


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("throughput", "memory"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    which, rest = sys.argv[1], sys.argv[2:]
    if which == "memory":
        memory_main(rest)
        return
    ct.ROWS = ROWS
    sys.argv = [sys.argv[0] + " throughput"] + rest
    if "--result-name" not in rest:
        sys.argv += ["--result-name", "bits-throughput"]
    ct.main()


if __name__ == "__main__":
    main()
