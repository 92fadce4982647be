"""SORT and SORT_RO compared byte for byte with a redis-server side by side: sets (intset,
listpack, hashtable) and sorted sets (listpack, skiplist), numeric and ALPHA, BY with strings
and hash fields (`->`), BY nosort (a zset keeps its order; DESC and LIMIT range over it), GET
`#`, strings, hash fields and missing keys, LIMIT edge cases, STORE of an empty result, the
errors and their order; RESP2 and RESP3; at 1 worker and through a 2-worker proxy port (all
pattern keys under the sorted keys' hash tag). Then what only Ruvio answers: a BY/GET pattern
key owned by another worker is refused with a clear error, a STORE destination there with
-CROSSSLOT (the router sees it, as Redis's sortGetKeys finds it).

Lists as sources (small and multi-node quicklists, BY nosort with DESC/LIMIT ranging over the
list) and STORE of non-empty results (over keys of every type) are compared too."""

import os
import shutil
import signal
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402
import sidebyside  # noqa: E402
import itest  # noqa: E402
from itest import Raw  # noqa: E402

BIG_INTS = [str(i * 7 % 1001 - 300) for i in range(600)]  # past set-max-intset-entries
BIG_STRS = [f"m{i:03d}" for i in range(200)]  # past set-max-listpack-entries
ZBIG = [x for i in range(150) for x in (str((i * 37) % 101 - 50.5), f"z{i}")]
HUGE = "9223372036854775807"

SETUP = [
    ["SADD", "{t}ints", "5", "3", "10", "-2", "7"],
    ["SADD", "{t}strs", "b", "a", "d", "c", "B", "aa", ""],
    ["SADD", "{t}big", *BIG_INTS],
    ["SADD", "{t}bigs", *BIG_STRS],
    ["SADD", "{t}nums", "1.5", "-inf", "1e3", "0x10", " 7", "", "+inf", "-0", "3.0"],
    ["SADD", "{t}bad", "1", "abc", "2"],
    ["SADD", "{t}huge", "1e400"],
    ["ZADD", "{t}z", "3", "c", "1", "a", "2", "b", "-1", "zz", "2", "bb"],
    ["ZADD", "{t}zn", "1", "30", "2", "10", "3", "20"],
    ["ZADD", "{t}zbig", *ZBIG],
    ["MSET", "{t}w_5", "50", "{t}w_3", "-1", "{t}w_10", "2.5", "{t}w_-2", "x1", "{t}w_7", "0"],
    ["MSET", "{t}a_b", "zeta", "{t}a_a", "alpha", "{t}a_d", "delta", "{t}a_B", "Beta"],
    ["MSET", "{t}a_aa", "aard", "{t}a_c", "gamma"],
    ["MSET", "{t}v_5", "100", "{t}v_3", "three", "{t}v_10", "ten"],
    ["HSET", "{t}h_5", "f", "9", "g", "five"],
    ["HSET", "{t}h_3", "f", "1", "g", "three"],
    ["HSET", "{t}h_10", "f", "4"],
    ["HSET", "{t}h_-2", "f", "-7", "g", "minus"],
    ["HSET", "{t}h_7", "g", "seven"],
    ["SET", "{t}w_5->", "1"],
    ["SET", "{t}str", "v"],
    ["HSET", "{t}hash", "f", "v"],
    ["SET", "{t}nw_a", "1"],
    ["SET", "{t}str2", "x"],
    ["HSET", "{t}hash2", "f", "v"],
    ["RPUSH", "{t}l", "3", "1", "2", "10", "-5", "2"],
    ["RPUSH", "{t}la", "b", "a", "C", "", "aa"],
    ["RPUSH", "{t}lbig", *[str((i * 13) % 997) for i in range(3000)]],
]

SCRIPT = [
    # lists
    ["SORT", "{t}l"],
    ["SORT", "{t}l", "DESC", "LIMIT", "1", "3"],
    ["SORT", "{t}la", "ALPHA"],
    ["SORT", "{t}la"],
    ["SORT", "{t}l", "BY", "nosort"],
    ["SORT", "{t}l", "BY", "nosort", "DESC"],
    ["SORT", "{t}l", "BY", "nosort", "LIMIT", "2", "3"],
    ["SORT", "{t}l", "BY", "nosort", "DESC", "LIMIT", "1", "2"],
    ["SORT", "{t}l", "BY", "nosort", "LIMIT", "10", "3"],
    ["SORT", "{t}lbig", "LIMIT", "0", "5"],
    ["SORT", "{t}lbig", "BY", "nosort", "DESC", "LIMIT", "2990", "50"],
    ["SORT", "{t}l", "BY", "{t}w_*", "GET", "#", "GET", "{t}h_*->f"],
    ["SORT_RO", "{t}l", "DESC"],
    ["SORT", "{t}l", "STORE", "{t}dl"],
    ["LRANGE", "{t}dl", "0", "-1"],
    ["SORT", "{t}la", "ALPHA", "GET", "{t}a_*", "STORE", "{t}dl"],
    ["LRANGE", "{t}dl", "0", "-1"],
    ["SORT", "{t}ints", "STORE", "{t}str2"],
    ["TYPE", "{t}str2"],
    ["LRANGE", "{t}str2", "0", "-1"],
    ["SORT", "{t}strs", "ALPHA", "STORE", "{t}hash2"],
    ["LRANGE", "{t}hash2", "0", "-1"],
    ["SORT", "{t}z", "BY", "nosort", "STORE", "{t}dz"],
    ["LRANGE", "{t}dz", "0", "-1"],
    ["SORT", "{t}lbig", "STORE", "{t}dbig"],
    ["LLEN", "{t}dbig"],
    ["LINDEX", "{t}dbig", "1500"],
    ["OBJECT", "ENCODING", "{t}dbig"],
    ["SORT", "{t}lbig", "STORE", "{t}lbig"],
    ["LRANGE", "{t}lbig", "0", "3"],
    # numeric, every encoding
    ["SORT", "{t}ints"],
    ["SORT", "{t}ints", "DESC"],
    ["SORT", "{t}big"],
    ["SORT", "{t}big", "desc", "limit", "10", "5"],
    ["SORT", "{t}nums"],
    ["SORT", "{t}nums", "DESC"],
    ["SORT", "{t}bad"],
    ["SORT", "{t}strs"],
    ["SORT", "{t}z"],
    ["SORT", "{t}zn"],
    ["SORT", "{t}zn", "DESC"],
    ["SORT", "{t}zbig"],
    # ALPHA (byte order)
    ["SORT", "{t}strs", "ALPHA"],
    ["SORT", "{t}strs", "ALPHA", "DESC"],
    ["SORT", "{t}ints", "ALPHA"],
    ["SORT", "{t}bigs", "ALPHA", "DESC", "LIMIT", "3", "4"],
    ["SORT", "{t}z", "ALPHA"],
    ["SORT", "{t}zbig", "ALPHA", "LIMIT", "0", "10"],
    ["SORT", "{t}nums", "ALPHA"],
    ["SORT", "{t}big", "ALPHA", "LIMIT", "590", "100"],
    # BY strings and hash fields
    ["SORT", "{t}ints", "BY", "{t}w_*"],
    ["SORT", "{t}ints", "BY", "{t}w_*", "DESC"],
    ["SORT", "{t}ints", "BY", "{t}v_*"],
    ["SORT", "{t}ints", "BY", "{t}h_*->f"],
    ["SORT", "{t}ints", "BY", "{t}h_*->f", "DESC", "LIMIT", "1", "2"],
    ["SORT", "{t}ints", "BY", "{t}h_*->g", "ALPHA"],
    ["SORT", "{t}ints", "BY", "{t}h_*->nofield"],
    ["SORT", "{t}ints", "BY", "{t}w_*->f"],
    ["SORT", "{t}ints", "BY", "{t}h_*->"],
    ["SORT", "{t}ints", "BY", "{t}missing_*"],
    ["SORT", "{t}ints", "BY", "{t}missing_*", "DESC"],
    ["SORT", "{t}strs", "BY", "{t}a_*", "ALPHA"],
    ["SORT", "{t}strs", "BY", "{t}nw_*"],
    ["SORT", "{t}strs", "BY", "{t}a_*"],
    ["SORT", "{t}ints", "BY", "{t}w_*_*"],
    ["SORT", "{t}ints", "BY", "{t}hash"],
    # BY nosort: a set keeps its order (DESC ignored), a zset its own with DESC and LIMIT
    ["SORT", "{t}ints", "BY", "nosort"],
    ["SORT", "{t}ints", "BY", "nosort", "DESC"],
    ["SORT", "{t}z", "BY", "nosort"],
    ["SORT", "{t}z", "BY", "nosort", "DESC"],
    ["SORT", "{t}z", "BY", "nosort", "LIMIT", "1", "2"],
    ["SORT", "{t}z", "BY", "nosort", "DESC", "LIMIT", "1", "3"],
    ["SORT", "{t}z", "BY", "nosort", "LIMIT", "4", "10"],
    ["SORT", "{t}z", "BY", "nosort", "LIMIT", "5", "1"],
    ["SORT", "{t}z", "BY", "nosort", "LIMIT", "-3", "2"],
    ["SORT", "{t}zbig", "BY", "nosort", "DESC", "LIMIT", "7", "5"],
    ["SORT", "{t}zbig", "BY", "nosort", "LIMIT", "148", "5", "GET", "#"],
    ["SORT", "{t}z", "BY", "nosort", "ALPHA", "DESC"],
    ["SORT", "{t}zn", "BY", "nosort", "BY", "{t}w_*"],
    ["SORT", "{t}ints", "BY", "{t}w_*", "BY", "nosort"],
    # GET
    ["SORT", "{t}ints", "GET", "#"],
    ["SORT", "{t}ints", "GET", "{t}v_*"],
    ["SORT", "{t}ints", "GET", "#", "GET", "{t}v_*", "GET", "{t}h_*->g"],
    ["SORT", "{t}ints", "GET", "{t}h_*->f", "BY", "{t}h_*->f", "DESC"],
    ["SORT", "{t}ints", "GET", "nostar"],
    ["SORT", "{t}ints", "GET", "{t}hash"],
    ["SORT", "{t}ints", "GET", "{t}w_*->"],
    ["SORT", "{t}ints", "GET", "{t}h_*->"],
    ["SORT", "{t}ints", "GET", "{t}str*"],
    ["SORT", "{t}strs", "ALPHA", "GET", "{t}a_*", "LIMIT", "2", "3"],
    ["SORT", "{t}z", "BY", "nosort", "GET", "#", "GET", "{t}a_*"],
    ["SORT", "{t}ints", "BY", "nosort", "GET", "{t}v_*"],
    # LIMIT edge cases
    ["SORT", "{t}ints", "LIMIT", "0", "0"],
    ["SORT", "{t}ints", "LIMIT", "0", "1"],
    ["SORT", "{t}ints", "LIMIT", "-1", "2"],
    ["SORT", "{t}ints", "LIMIT", "2", "-1"],
    ["SORT", "{t}ints", "LIMIT", "-5", "-5"],
    ["SORT", "{t}ints", "LIMIT", "4", "1"],
    ["SORT", "{t}ints", "LIMIT", "5", "1"],
    ["SORT", "{t}ints", "LIMIT", "100", "5"],
    ["SORT", "{t}ints", "LIMIT", "0", HUGE],
    ["SORT", "{t}ints", "LIMIT", "1", HUGE],
    ["SORT", "{t}ints", "LIMIT", "3", HUGE],
    ["SORT", "{t}big", "DESC", "LIMIT", "5", HUGE, "GET", "#"],
    ["SORT", "{t}ints", "LIMIT", HUGE, "1"],
    ["SORT", "{t}ints", "LIMIT", "1", "2", "LIMIT", "0", "1"],
    ["SORT", "{t}z", "BY", "nosort", "LIMIT", "0", HUGE],
    ["SORT", "{t}z", "BY", "nosort", "LIMIT", "1", HUGE],
    ["SORT", "{t}z", "BY", "nosort", "LIMIT", HUGE, HUGE],
    ["SORT", "{t}z", "BY", "nosort", "DESC", "LIMIT", "2", HUGE],
    # missing key
    ["SORT", "{t}missing"],
    ["SORT", "{t}missing", "BY", "nosort", "LIMIT", "0", "1", "GET", "#"],
    ["SORT", "{t}missing", "ALPHA", "DESC", "LIMIT", "3", "3"],
    ["SORT_RO", "{t}missing"],
    # SORT_RO
    ["SORT_RO", "{t}ints", "BY", "{t}w_*", "GET", "#", "GET", "{t}v_*"],
    ["SORT_RO", "{t}strs", "ALPHA", "DESC"],
    ["SORT_RO", "{t}ints", "STORE", "{t}dst"],
    # errors and their order
    ["SORT", "{t}str"],
    ["SORT", "{t}hash", "ALPHA"],
    ["SORT", "{t}str", "foo"],
    ["SORT", "{t}ints", "foo"],
    ["SORT", "{t}ints", "LIMIT"],
    ["SORT", "{t}ints", "LIMIT", "1"],
    ["SORT", "{t}ints", "LIMIT", "a", "1"],
    ["SORT", "{t}ints", "LIMIT", "1", "b"],
    ["SORT", "{t}ints", "LIMIT", "1.5", "1"],
    ["SORT", "{t}ints", "BY"],
    ["SORT", "{t}ints", "GET"],
    ["SORT", "{t}ints", "STORE"],
    ["SORT", "{t}str", "LIMIT", "x", "1"],
    ["SORT", "{t}missing", "foo"],
    ["SORT", "{t}bad", "LIMIT", "0", "0"],
    ["SORT", "{t}bad", "BY", "{t}w_*"],
    ["SORT", "{t}ints", "BY", "{t}w_*", "ALPHA", "STORE"],
    ["SORT"],
    ["SORT_RO"],
    # STORE of an empty result deletes the destination (any type) and replies 0
    ["SET", "{t}dst", "old"],
    ["SORT", "{t}missing", "STORE", "{t}dst"],
    ["EXISTS", "{t}dst"],
    ["SADD", "{t}dst", "x"],
    ["SORT", "{t}ints", "LIMIT", "10", "1", "STORE", "{t}dst"],
    ["EXISTS", "{t}dst"],
    ["SORT", "{t}z", "BY", "nosort", "LIMIT", "0", "0", "STORE", "{t}dst"],
    ["SORT", "{t}missing", "STORE", "{t}dst"],
    ["SORT", "{t}bad", "STORE", "{t}dst"],
    # a zset is converted for good, and SORT did not touch the keys it read
    ["OBJECT", "ENCODING", "{t}z"],
    ["OBJECT", "ENCODING", "{t}zn"],
    ["ZRANGE", "{t}z", "0", "-1", "WITHSCORES"],
    ["OBJECT", "ENCODING", "{t}ints"],
    ["SMEMBERS", "{t}ints"],
    ["COMMAND", "INFO", "sort", "sort_ro"],
    ["COMMAND", "DOCS", "sort_ro"],
    # (COMMAND GETKEYS SORT ... STORE dst differs by design: Ruvio has no getkeys procs, and
    # the STORE key spec is declared unknown, so only the sorted key is found.)
    ["COMMAND", "GETKEYS", "SORT_RO", "{t}ints", "BY", "{t}w_*"],
    # Last: redis-server never clears errno before its strtod, so once a weight overflowed
    # (ERANGE) every later numeric SORT of that process fails; only this call is comparable.
    ["SORT", "{t}huge"],
]

RESP3 = [
    ["SORT", "{t}ints", "GET", "#", "GET", "{t}v_*"],
    ["SORT", "{t}missing"],
    ["SORT", "{t}z", "BY", "nosort", "DESC"],
    ["SORT_RO", "{t}strs", "ALPHA", "LIMIT", "1", "2"],
    ["SORT", "{t}missing", "STORE", "{t}dst"],
    ["SORT", "{t}bad"],
]


class SortSideBySide(unittest.TestCase):
    workers = 1

    def test_sort_matches_redis(self):
        with sidebyside.pair(self.workers) as (ref, cand):
            with Raw(ref.port) as a, Raw(cand.port) as b:
                for cmd in SETUP:
                    self.assertEqual(b.call(*cmd), a.call(*cmd), cmd[:2])
                for cmd in SCRIPT:
                    with self.subTest(cmd=cmd):
                        self.assertEqual(b.call(*cmd), a.call(*cmd))
            with Raw(ref.port) as a, Raw(cand.port) as b:
                a.call("HELLO", "3")
                b.call("HELLO", "3")
                for cmd in RESP3:
                    with self.subTest(resp3=cmd):
                        self.assertEqual(b.call(*cmd), a.call(*cmd))


class SortSideBySideProxy(SortSideBySide):
    workers = 2


class SortAcrossWorkers(unittest.TestCase):
    """At 2 workers the handler runs on the sorted key's owner: pattern keys owned by the
    other worker are refused, naming the first such key; a STORE destination there is a key
    of the command, so the router answers -CROSSSLOT."""

    def test_foreign_keys_refused(self):
        with harness.Server(kind="ruvio", args=["--workers", "2"]) as srv:
            itest.wait_mesh_up(srv.port)
            src = "{t}ints"
            home = itest.owner(src)
            elems = ["-2", "3", "5", "7", "10"]  # the ascending order SORT reads them in
            foreign = [e for e in elems if itest.owner(f"w_{e}") != home]
            self.assertTrue(foreign)
            first = f"w_{foreign[0]}"
            other_dst = itest.keys_of(1 - home, 1, "dst")[0]
            with Raw(srv.port) as c:
                c.call("SADD", src, *elems)
                c.call("SET", "{t}w_3", "9")
                self.assertEqual(
                    c.call("SORT", src, "BY", "w_*"),
                    b"-ERR SORT BY pattern key '%s' is owned by another worker\r\n" % first.encode())
                self.assertEqual(
                    c.call("SORT_RO", src, "GET", "#", "GET", "w_*"),
                    b"-ERR SORT GET pattern key '%s' is owned by another worker\r\n" % first.encode())
                self.assertEqual(
                    c.call("SORT", src, "STORE", other_dst),
                    b"-CROSSSLOT Keys in request don't hash to the same slot\r\n")
                # BY nosort reads no pattern key; hash-tagged pattern keys live with the source.
                self.assertEqual(c.call("SORT", src, "BY", "nosort", "LIMIT", "0", "2"),
                                 b"*2\r\n$2\r\n-2\r\n$1\r\n3\r\n")
                self.assertEqual(c.call("SORT", src, "BY", "{t}w_*", "LIMIT", "0", "1", "DESC"),
                                 b"*1\r\n$1\r\n3\r\n")


class SortClusterPort(unittest.TestCase):
    """On a direct (Redis Cluster) port BY and GET patterns are refused, as Redis Cluster
    refuses them; BY without '*' (nosort) is not a pattern and runs."""

    def test_patterns_denied_on_direct_port(self):
        with harness.Server(kind="ruvio", args=["--workers", "1"]) as srv:
            with Raw(srv.port) as c:
                c.call("SADD", "s", "2", "1")
            with Raw(srv.port + 1) as d:
                self.assertEqual(d.call("SORT", "s", "BY", "w_*"),
                                 b"-ERR BY option of SORT denied in Cluster mode.\r\n")
                self.assertEqual(d.call("SORT_RO", "s", "GET", "#"),
                                 b"-ERR GET option of SORT denied in Cluster mode.\r\n")
                self.assertEqual(d.call("SORT", "s", "BY", "nosort", "LIMIT", "0", "5"),
                                 b"*2\r\n$1\r\n1\r\n$1\r\n2\r\n")
                self.assertEqual(d.call("SORT", "s", "DESC"), b"*2\r\n$1\r\n2\r\n$1\r\n1\r\n")


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class SortDurability(unittest.TestCase):
    """SORT ... STORE of an empty result is logged as the DEL of the destination, a non-empty
    one as the SORT itself (replay sorts the same data, as Redis replicates it); a SORT that
    only read (and converted a zset's encoding) logs nothing that changes data."""

    def test_store_effect_survives_sigkill(self):
        tmp = tempfile.mkdtemp(prefix="ruvio-sortdur-")
        data = os.path.join(tmp, "data")
        args = ["--dir", data, "--durability", "always", "--workers", "1",
                "--alloc-trace", "off"]
        try:
            srv = harness.Server(kind="ruvio", args=args)
            with Raw(srv.port) as c:
                c.call("ZADD", "z", "2", "b", "1", "a")
                c.call("SET", "d1", "x")
                c.call("SADD", "d2", "m")
                c.call("SET", "keep", "y")
                self.assertEqual(c.call("SORT", "z", "ALPHA"), b"*2\r\n$1\r\na\r\n$1\r\nb\r\n")
                self.assertEqual(c.call("SORT", "missing", "STORE", "d1"), b":0\r\n")
                self.assertEqual(c.call("SORT", "z", "ALPHA", "LIMIT", "9", "1", "STORE", "d2"), b":0\r\n")
                self.assertEqual(c.call("SORT", "missing", "STORE", "nothing"), b":0\r\n")
                c.call("RPUSH", "l", "3", "1", "2")
                c.call("SET", "d3", "old")
                self.assertEqual(c.call("SORT", "l", "DESC", "STORE", "d3"), b":3\r\n")
                self.assertEqual(c.call("SORT", "z", "ALPHA", "STORE", "d4"), b":2\r\n")
            deadline = time.monotonic() + 10
            while not srv.worker_pids() and time.monotonic() < deadline:
                time.sleep(0.02)
            os.kill(srv.worker_pids()[0], signal.SIGKILL)
            srv.stop(signal.SIGKILL)
            srv = harness.Server(kind="ruvio", args=args)
            with Raw(srv.port) as c:
                self.assertEqual(c.call("EXISTS", "d1", "d2", "nothing"), b":0\r\n")
                self.assertEqual(c.call("LRANGE", "d3", "0", "-1"),
                                 b"*3\r\n$1\r\n3\r\n$1\r\n2\r\n$1\r\n1\r\n")
                self.assertEqual(c.call("LRANGE", "d4", "0", "-1"), b"*2\r\n$1\r\na\r\n$1\r\nb\r\n")
                self.assertEqual(c.call("GET", "keep"), b"$1\r\ny\r\n")
                self.assertEqual(c.call("ZRANGE", "z", "0", "-1", "WITHSCORES"),
                                 b"*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n")
            srv.stop()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
