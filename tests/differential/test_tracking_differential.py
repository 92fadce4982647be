"""Client-side caching, differential: one seeded command stream of every family (the mix of
test_notify_differential.py) runs on redis-server and on Ruvio with a tracking client T and
a writer W: T runs the read-only commands (so it caches their keys), W the writes. Every
frame T receives (replies and `invalidate` pushes, in arrival order) must be byte-identical
on both servers, in each mode: RESP3 default, BCAST with prefixes, OPTIN with CLIENT CACHING
yes before some reads, OPTOUT with CLIENT CACHING no, NOLOOP (T writes too), and RESP2 with
REDIRECT to a client subscribed to __redis__:invalidate (whose frames are compared). FLUSHALL
now and then checks the null invalidation. Then the bad-input errors of the four commands.

The readonly/write split comes from redis-server's own COMMAND INFO flags.

Env: RUVIO_DIFF_SEED (printed; replays a run), RUVIO_TRACKING_DIFF_COMMANDS (per mode,
default 700).
"""

import collections
import os
import random
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import harness  # noqa: E402
import sidebyside  # noqa: E402
import test_differential as td  # noqa: E402
from resp_raw import Frames, RawConn, parse  # noqa: E402
from test_notify_differential import Mix  # noqa: E402

MODES = {
    "default": [b"ON"],
    "bcast": [b"ON", b"BCAST", b"PREFIX", b"s", b"PREFIX", b"{z}", b"PREFIX", b"k1"],
    # CLIENT CACHING yes (OPTIN) / no (OPTOUT) goes before a random half of T's reads.
    "optin": [b"ON", b"OPTIN"],
    "optout": [b"ON", b"OPTOUT"],
    "noloop": [b"ON", b"NOLOOP"],
    "redirect": None,  # RESP2 + REDIRECT <R's id>
}


def readonly_names(port):
    c = RawConn(port)
    try:
        info = parse(c.call(b"COMMAND", b"INFO", *[n.encode() for n in NAMES]))
    finally:
        c.close()
    out = set()
    for entry in info:
        if entry and b"readonly" in entry[2]:
            out.add(entry[0].upper())
    return out


NAMES = ["get", "mget", "strlen", "getrange", "exists", "type", "ttl", "pttl", "hget", "hmget",
         "hgetall", "hlen", "hexists", "hkeys", "hvals", "hstrlen", "lrange", "lindex", "llen",
         "lpos", "smembers", "sismember", "smismember", "scard", "sinter", "sunion", "sdiff",
         "zrange", "zscore", "zcard", "zrank", "zrevrank", "zcount", "zmscore", "zrangebyscore",
         "zrevrange", "zlexcount", "geopos", "geodist", "geohash", "xlen", "xrange", "xrevrange",
         "getbit", "bitcount", "bitpos", "pfcount", "expiretime", "pexpiretime", "dump",
         "object", "sintercard", "zintercard", "lcs", "substr", "touch", "bitfield_ro",
         "zrevrangebyscore", "zrangebylex", "zrevrangebylex", "georadius_ro", "geosearch",
         "xinfo", "xpending", "hrandfield", "sort_ro", "zunion", "zinter", "zdiff"]


def run_mode(port, mode, seed, count, readonly, log=None, skip=(), crossed=None):
    """Returns the frames T (or, with REDIRECT, R) received. Through a 2-worker proxy the
    commands answered CROSSSLOT go to `crossed` (their indices); the reference run is given
    them as `skip`, so both servers keep the same data."""
    t, w = Frames(port), Frames(port)
    log = log if log is not None else []
    r = None
    try:
        w.call(b"FLUSHALL")
        if mode == "redirect":
            r = Frames(port)
            rid = parse(r.call(b"CLIENT", b"ID"))
            r.call(b"SUBSCRIBE", b"__redis__:invalidate")
            t.call(b"CLIENT", b"TRACKING", b"ON", b"REDIRECT", b"%d" % rid)
        else:
            t.call(b"HELLO", b"3")
            t.call(b"CLIENT", b"TRACKING", *MODES[mode])
        t.frames.clear()
        mix, sched = Mix(seed), random.Random(seed ^ 0x7EAC)
        for i in range(count):
            cmd = mix.next()
            log.append((len(t.frames), cmd.args))
            if sched.random() < 0.01:
                w.call(b"FLUSHALL")
                continue
            by = w
            if cmd.args[0].upper() in readonly:
                if mode == "optin" and sched.random() < 0.5:
                    t.call(b"CLIENT", b"CACHING", b"yes")
                if mode == "optout" and sched.random() < 0.5:
                    t.call(b"CLIENT", b"CACHING", b"no")
                by = t
            elif mode == "noloop" and sched.random() < 0.5:
                by = t
            if i in skip:
                continue
            reply = by.call(*cmd.args)
            if crossed is not None and reply.startswith(b"-CROSSSLOT"):
                crossed.add(i)
                if by is t:
                    t.frames.pop()
            elif by is w and crossed is not None:
                time.sleep(0.002)  # the invalidation of a write on the other worker crosses the mesh
            if mode == "bcast":
                t.drain(0.0)  # BCAST messages leave once per loop turn: read them in order
        t.call(b"PING")
        t.drain()
        if r is not None:
            r.drain()
        return (r or t).frames if mode == "redirect" else t.frames
    finally:
        for c in (t, w, r):
            if c is not None:
                c.close()


def pushes(frames):
    return [f for f in frames if f[:1] == b">" or f.startswith(b"*3\r\n$7\r\nmessage")]


def segments(frames):
    out, cur = [], collections.Counter()
    for f in frames:
        if f.endswith(b"invalidate\r\n_\r\n") or f.endswith(b"invalidate\r\n*-1\r\n") or \
                f.endswith(b"invalidate\r\n$-1\r\n"):
            out += [sorted(cur.items()), f]
            cur = collections.Counter()
        else:
            # BCAST lists a loop turn's keys in one message; a split write's keys come from
            # two workers, in two turns: counted key by key.
            v = parse(f)
            for k in v[-1] if isinstance(v[-1], list) else [v[-1]]:
                cur[(v[0], k)] += 1
    return out + [sorted(cur.items())]


class TrackingDifferentialTest(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(harness.RUVIO_BIN):
            self.skipTest(f"{harness.RUVIO_BIN} not built")

    def run_modes(self, workers):
        seed = td.diff_seed()
        count = int(os.environ.get("RUVIO_TRACKING_DIFF_COMMANDS", "700"))
        with sidebyside.pair(workers) as (ref, cand):
            readonly = readonly_names(ref.port)
            total = 0
            for mode in MODES:
                log = []
                # The candidate first: through the proxy, what it refuses with CROSSSLOT is
                # left out of the reference run.
                crossed = set() if workers > 1 else None
                fb = run_mode(cand.port, mode, seed, count, readonly, log, crossed=crossed)
                fa = run_mode(ref.port, mode, seed, count, readonly, skip=crossed or ())
                a, b = pushes(fa), pushes(fb)
                sent = len(a)
                note = f"mode={mode} workers={workers} seed={seed} (replay: RUVIO_DIFF_SEED={seed})"
                if workers > 1:
                    a, b = segments(a), segments(b)
                    self.assertEqual(a, b, note)
                for i, (x, y) in enumerate(zip(a, b)):
                    if x != y:
                        at = [j for j, f in enumerate(fb) if f[:1] == b">" or
                              f.startswith(b"*3\r\n$7\r\nmessage")][i]
                        near = [c for n, c in log if at - 40 <= n <= at]
                        self.fail(f"invalidation #{i} {note}: redis {x} ruvio {y}; commands "
                                  f"before: {[b' '.join(c)[:70] for c in near[-25:]]}")
                self.assertEqual(len(a), len(b), note)
                if mode != "optin":
                    self.assertGreater(sent, 10, note)
                total += sent
            print(f"\ntracking differential: workers={workers} seed={seed} {count} commands x "
                  f"{len(MODES)} modes, {total} invalidations", file=sys.stderr)

    def test_modes(self):
        self.run_modes(1)

    def test_modes_2_workers(self):
        # Through the proxy port: T, W and R land on either worker, keys live on both.
        self.run_modes(2)

    def test_bad_input(self):
        cases = [
            [b"CLIENT", b"TRACKING", b"maybe"],
            [b"CLIENT", b"TRACKING", b"on", b"bogus"],
            [b"CLIENT", b"TRACKING", b"on", b"prefix", b"a"],
            [b"CLIENT", b"TRACKING", b"on", b"bcast", b"optin"],
            [b"CLIENT", b"TRACKING", b"on", b"optin", b"optout"],
            [b"CLIENT", b"TRACKING", b"on", b"redirect", b"abc"],
            [b"CLIENT", b"TRACKING", b"on", b"redirect", b"999999"],
            [b"CLIENT", b"TRACKING", b"on", b"bcast", b"prefix", b"ab", b"prefix", b"a"],
            [b"CLIENT", b"TRACKING"],
            [b"CLIENT", b"CACHING", b"yes"],
            [b"CLIENT", b"CACHING", b"yes", b"no"],
            [b"CLIENT", b"GETREDIR"],
            [b"CLIENT", b"GETREDIR", b"x"],
            [b"CLIENT", b"TRACKINGINFO"],
            [b"CLIENT", b"TRACKING", b"on", b"optin"],
            [b"CLIENT", b"CACHING", b"no"],
            [b"CLIENT", b"CACHING", b"maybe"],
            [b"CLIENT", b"CACHING", b"yes"],
            [b"CLIENT", b"TRACKINGINFO"],
            [b"CLIENT", b"TRACKING", b"on", b"optout"],
            [b"CLIENT", b"TRACKING", b"on", b"bcast"],
            [b"CLIENT", b"GETREDIR"],
            [b"CLIENT", b"TRACKING", b"off"],
            [b"CLIENT", b"TRACKING", b"on", b"bcast", b"prefix", b"a", b"noloop"],
            [b"CLIENT", b"TRACKING", b"on", b"bcast", b"prefix", b"ab"],
            [b"CLIENT", b"TRACKINGINFO"],
            [b"CLIENT", b"TRACKING", b"on"],
        ]
        with sidebyside.pair() as (ref, cand):
            for proto in (b"2", b"3"):
                a, b = RawConn(ref.port), RawConn(cand.port)
                try:
                    for c in (a, b):
                        c.call(b"HELLO", proto)
                    for cmd in cases:
                        self.assertEqual(a.call(*cmd), b.call(*cmd), f"{cmd} RESP{proto}")
                finally:
                    a.close()
                    b.close()


if __name__ == "__main__":
    unittest.main()
