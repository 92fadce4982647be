#!/usr/bin/python3
"""Stream throughput and memory, Ruvio against Debian's redis-server 7.0.15 in the same run
(the streams issue's benchmark rows).

Throughput: collections_throughput.py's method and code (fresh server per round and kind,
one after the other, order alternating; server on CPU 1, redis-benchmark on CPU 0; per row
FLUSHALL, load with every reply checked, one redis-cli probe per command whose reply type
must be redis-server's, the benchmark at 50 clients and pipeline 16, checks after). The
primary figure is the server's CPU µs per request from /proc/<pid>/task/*/schedstat;
requests/s beside it; medians over the rounds; foreign CPU recorded per test.

Rows:
  XADD * MAXLEN ~ 1000   XADD s MAXLEN ~ 1000 * f1 v:<rand> f2 <rand> (2 fields) into a
                         stream of 1,000; after: 1,000 <= XLEN < 1,200
  XRANGE - + COUNT 10    on a stream of 1,000 entries of 2 fields
  XREAD COUNT 10         XREAD COUNT 10 STREAMS s1000 <rand>-0: the 10 entries after a
                         random one of the 1,000
  XREADGROUP > + XACK    two redis-benchmark processes at once (25 clients, half the
                         requests each): XREADGROUP GROUP g c COUNT 1 STREAMS sg > delivers
                         the next entry of a stream of requests/2 + 50,000 entries, XACK sg g
                         <rand>-0 acknowledges a random entry (pending or not)
  XLEN                   XLEN s1000

Memory (collections_zset.py's method: a fresh server per data set and kind, VmRSS of the
measured process before and 1 s after the load, DBSIZE checked, RSS above idle):
  stream1m     one stream of 1,000,000 entries: XADD big * f1 v:<i> f2 <i>
  streams10    10,000 streams of 10 entries: XADD s:<i/10> * f1 v:<i> f2 <i>
Every XADD * reply is checked to be an ID.

Usage: bench/streams.py [--rounds 3] [--requests 300000] [--servers redis,ruvio]
                        [--part throughput,memory] [--no-write]
Writes bench/results/<date>-streams.json.
"""

import os
import re
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collections_throughput as ct  # noqa: E402
import common  # noqa: E402
from memory import _resp, load_pipelined, measure_rss  # noqa: E402

S1000 = 1000
BIG = 1_000_000
SMALL_STREAMS = 10_000
ID_REPLY = re.compile(rb"\$\d+\r\n\d+-\d+\r\n")


def bulk(s):
    return b"$%d\r\n%s\r\n" % (len(s), s)


def stream_of(port, key, n):
    """`key` with entries 1-0 .. n-0 of two fields, every reply checked."""
    load_pipelined(port, n, lambda i: _resp(b"XADD", key, b"%d-0" % (i + 1), b"f1",
                                            b"v:%d" % i, b"f2", b"%d" % i),
                   lambda i: bulk(b"%d-0" % (i + 1)))
    ct.expect(f"XLEN {key!r}", ct.call_int(port, b"XLEN", key), n)


def load_s1000(port, requests):
    stream_of(port, b"s1000", S1000)


def load_xadd(port, requests):
    stream_of(port, b"s", S1000)


def group_stream_size(requests):
    return requests // 2 + 50_000


def load_group(port, requests):
    stream_of(port, b"sg", group_stream_size(requests))
    reply = ct._call(port, b"XGROUP", b"CREATE", b"sg", b"g", b"0")
    if reply != b"+OK\r\n":
        raise RuntimeError(f"XGROUP CREATE replied {reply!r}")


def s1000_after(port, requests):
    ct.expect("XLEN s1000 after", ct.call_int(port, b"XLEN", b"s1000"), S1000)


def xadd_after(port, requests):
    n = ct.call_int(port, b"XLEN", b"s")
    if not S1000 <= n < 1200:
        raise RuntimeError(f"XLEN s after: {n}, expected 1000..1199 (MAXLEN ~ 1000)")


def group_after(port, requests):
    n = ct.call_int(port, b"XLEN", b"sg")
    ct.expect("XLEN sg after", n, group_stream_size(requests))


ROWS = [
    ("XADD * MAXLEN ~ 1000 (2 fields)", load_xadd,
     [(100_000, "XADD s MAXLEN ~ 1000 * f1 v:__rand_int__ f2 __rand_int__")], xadd_after),
    ("XRANGE - + COUNT 10 (1000)", load_s1000, [(S1000, "XRANGE s1000 - + COUNT 10")],
     s1000_after),
    ("XREAD COUNT 10 (1000)", load_s1000, [(S1000, "XREAD COUNT 10 STREAMS s1000 __rand_int__-0")],
     s1000_after),
    ("XREADGROUP > + XACK", load_group,
     [(1, "XREADGROUP GROUP g c COUNT 1 STREAMS sg >"), (100_000, "XACK sg g __rand_int__-0")],
     group_after),
    ("XLEN (1000)", load_s1000, [(S1000, "XLEN s1000")], s1000_after),
]


# ---- memory ------------------------------------------------------------------------------

def load_ids(port, n, make, batch=200):
    """Sends make(i) for i < n pipelined; every reply must be a stream ID."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for start in range(0, n, batch):
            count = min(n, start + batch) - start
            s.sendall(b"".join(make(i) for i in range(start, start + count)))
            buf = b""
            while buf.count(b"\r\n") < 2 * count:
                chunk = s.recv(1 << 16)
                if not chunk:
                    raise ConnectionError("server closed the connection")
                buf += chunk
            got = ID_REPLY.findall(buf)
            if len(got) != count or sum(map(len, got)) != len(buf):
                raise RuntimeError(f"unexpected reply in batch at {start}: {buf[:200]!r}")


def load_stream1m(port):
    load_ids(port, BIG, lambda i: _resp(b"XADD", b"big", b"*", b"f1", b"v:%d" % i, b"f2",
                                        b"%d" % i))
    ct.expect("XLEN big", ct.call_int(port, b"XLEN", b"big"), BIG)
    return 1


def load_streams10(port):
    load_ids(port, SMALL_STREAMS * 10,
             lambda i: _resp(b"XADD", b"s:%d" % (i // 10), b"*", b"f1", b"v:%d" % i, b"f2",
                             b"%d" % i))
    ct.expect("XLEN s:0", ct.call_int(port, b"XLEN", b"s:0"), 10)
    return SMALL_STREAMS


SETS = {
    "stream1m": (load_stream1m, "XADD big * f1 v:<i> f2 <i> for i < 1,000,000, pipeline 200; "
                                "every reply an ID; XLEN 1,000,000; DBSIZE 1"),
    "streams10": (load_streams10, "XADD s:<i/10> * f1 v:<i> f2 <i> for i < 100,000, "
                                  "pipeline 200; every reply an ID; DBSIZE 10,000"),
}


def measure_memory(kind, name):
    return measure_rss(kind, name, SETS[name][0])


def memory_part(servers):
    return common.compare_memory(SETS, servers, measure_memory)


# ---- throughput --------------------------------------------------------------------------

def throughput_part(servers, rounds_n, requests):
    summary = ct.measure_and_report(servers, rounds_n, requests, ROWS)
    return {"client": f"taskset -c {common.CLIENT_CPU} redis-benchmark",
            "commands": {name: [" ".join(c) for c in ct.row_commands("PORT", requests, cmds)]
                         for name, _, cmds, _ in ROWS},
            "data": {name: load.__name__ for name, load, _, _ in ROWS},
            "rounds": rounds_n, "requests_per_test": requests, "clients": ct.CLIENTS,
            "pipeline": ct.PIPELINE, **summary}


def main():
    ap = common.against_redis_parser(__doc__)
    ap.add_argument("--part", default="throughput,memory")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    common.need("redis-benchmark")
    common.need("redis-cli")
    servers = a.servers.split(",")
    parts = a.part.split(",")
    os.sched_setaffinity(0, {int(common.CLIENT_CPU)})
    out = {}
    if "throughput" in parts:
        out["throughput"] = throughput_part(servers, a.rounds, a.requests)
    if "memory" in parts:
        out["memory"] = memory_part(servers)
    if not a.no_write:
        path = common.write_result("streams", {
            "servers": {k: common.server_command(k) for k in servers},
            "command": "bench/streams.py " + " ".join(sys.argv[1:]),
            "method": "throughput: collections_throughput.py's run_server/run_test (server CPU "
                      "µs per request = summed first schedstat field over /proc/PID/task/* / "
                      "requests, median over rounds); memory: VmRSS 0.5 s after start (idle) "
                      "and 1 s after the load and checks (loaded), Ruvio: the worker process; "
                      "targets (reported, not asserted): each <= 0.8x Redis",
            **out})
        print(f"wrote {os.path.relpath(path, common.ROOT)}")


if __name__ == "__main__":
    main()
