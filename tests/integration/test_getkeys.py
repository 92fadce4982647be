"""COMMAND GETKEYS and COMMAND GETKEYSANDFLAGS side by side with redis-server 7.0.15, byte for
byte in RESP2 and RESP3 (flags are a set there), at 1 worker and through the proxy port of 2
workers: SORT and SORT_RO in many forms (BY/GET patterns, LIMIT, STORE anywhere and several
times: the last one counts, as Redis's sortGetKeys finds it), hand-written lines of the
commands whose keys need more than a fixed position (numkeys, keywords, subcommands, SET … GET,
BITFIELD, MIGRATE … KEYS, XREAD STREAMS), and every command both servers know with 0 to 6
plain arguments (arity errors, invalid numkeys, "no key arguments" included).

SORT's STORE key is seen by every key finder, not only COMMAND GETKEYS: an ACL user's key
patterns refuse or allow it as redis-server's do, the proxy port refuses a SORT … STORE across
workers with -CROSSSLOT, and the cluster (direct) port refuses one across slots as a
--cluster-enabled redis-server does."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))
import harness  # noqa: E402
import itest  # noqa: E402
import sidebyside  # noqa: E402
from itest import Raw  # noqa: E402
from resp_raw import parse  # noqa: E402

SORTS = [
    ("sort", "abc"),
    ("sort", "abc", "store", "def"),
    ("sort", "abc", "store", "invalid", "store", "stillbad", "store", "def"),
    ("SORT", "abc", "STORE", "def", "LIMIT", "0", "10", "ALPHA", "DESC"),
    ("sort", "abc", "by", "w_*", "get", "#", "get", "h_*->f", "store", "dst"),
    ("sort", "abc", "limit", "0", "1", "store", "d1", "by", "store", "get", "store"),
    ("sort", "abc", "limit", "store", "x", "store", "y"),
    ("sort", "abc", "get", "store", "store", "x"),
    ("sort", "abc", "store", "get", "store", "x"),
    ("sort", "abc", "store", "x", "get"),
    ("sort", "abc", "store", "x", "y"),
    ("sort", "abc", "store"),
    ("sort", "abc", "by", "store"),
    ("sort", "abc", "limit", "0"),
    ("sort", "abc", "limit"),
    ("sort", "abc", "StOrE", "x", "bogus", "store", "z"),
    ("sort", "store", "store", "store"),
    ("sort", "abc", "store", "abc"),
    ("sort_ro", "abc"),
    ("sort_ro", "abc", "by", "w_*", "get", "#", "limit", "0", "5", "alpha"),
    ("sort_ro", "abc", "store", "x"),
    ("sort", ),
    ("sort_ro", ),
]

LINES = [
    ("get", "a"), ("set", "a", "b"), ("set", "a", "b", "get"), ("set", "a", "b", "EX", "1", "GET"),
    ("set", "a", "b", "nx"), ("mset", "a", "1", "b", "2"), ("mset", "a", "1", "b"),
    ("msetnx", "a", "1", "b", "2"), ("mget", "a", "b", "c"), ("del", "a", "b"),
    ("rename", "a", "b"), ("renamenx", "a", "b"), ("copy", "a", "b", "db", "1", "replace"),
    ("lmove", "a", "b", "left", "right"), ("blmove", "a", "b", "left", "right", "0"),
    ("rpoplpush", "a", "b"), ("brpoplpush", "a", "b", "0"), ("blpop", "a", "b", "0"),
    ("lmpop", "2", "a", "b", "left"), ("lmpop", "0", "a", "left"), ("lmpop", "x", "a", "left"),
    ("lmpop", "5", "a", "left"), ("blmpop", "0", "2", "a", "b", "left", "count", "2"),
    ("zunionstore", "d", "2", "a", "b", "weights", "1", "2"), ("zunionstore", "d", "0", "a"),
    ("zunionstore", "d", "-1", "a"), ("zinterstore", "d", "3", "a", "b"),
    ("zunion", "2", "a", "b"), ("zinter", "1", "a", "withscores"), ("zdiff", "2", "a", "b"),
    ("zdiffstore", "d", "2", "a", "b"), ("zintercard", "2", "a", "b", "limit", "1"),
    ("zmpop", "2", "a", "b", "min"), ("bzmpop", "1", "1", "a", "max"),
    ("zrangestore", "d", "s", "0", "-1"), ("sintercard", "2", "a", "b"),
    ("sinterstore", "d", "a", "b"), ("smove", "a", "b", "m"),
    ("eval", "return 1", "2", "a", "b", "c"), ("eval", "return 1", "0"),
    ("eval", "return 1", "x"), ("eval", "return 1", "3", "a"), ("evalsha", "x", "1", "a"),
    ("eval_ro", "return 1", "1", "a"), ("fcall", "f", "2", "a", "b"), ("fcall_ro", "f", "0"),
    ("xread", "count", "1", "streams", "a", "b", "0", "0"), ("xread", "streams", "a", "b", "0"),
    ("xread", "block", "0", "streams", "a", "$"),
    ("xreadgroup", "group", "g", "c", "streams", "a", "b", ">", ">"),
    ("xadd", "s", "*", "f", "v"), ("xinfo", "stream", "s"), ("xinfo", "groups", "s"),
    ("xgroup", "create", "s", "g", "$"), ("object", "encoding", "k"),
    ("object", "freq", "k"), ("memory", "usage", "k", "samples", "5"),
    ("migrate", "h", "1", "k", "0", "5"), ("migrate", "h", "1", "", "0", "5", "keys", "a", "b"),
    ("migrate", "h", "1", "", "0", "5", "copy", "auth", "p", "keys", "a"),
    ("migrate", "h", "1", "", "0", "5", "auth2", "u", "keys", "p", "keys", "b"),
    ("migrate", "h", "1", "", "0", "5", "keys"), ("migrate", "h", "1", "k", "0", "5", "keys", "b"),
    ("migrate", "h", "1", "", "0", "5", "auth", "keys", "keys", "b"),
    ("migrate", "h", "1", "", "0", "5", "bogus", "keys", "a"),
    ("migrate", "h", "1", "", "0", "5", "auth", "keys", "keys"),
    ("georadius", "g", "0", "0", "1", "km", "store", "d"),
    ("georadius", "g", "0", "0", "1", "km", "storedist", "d", "store", "e"),
    ("georadiusbymember", "g", "m", "1", "km", "store", "d"),
    ("geosearchstore", "d", "s", "frommember", "m", "byradius", "1", "km"),
    ("bitfield", "k", "get", "u8", "0"), ("bitfield", "k", "set", "u8", "0", "1"),
    ("bitfield", "k", "overflow", "sat", "get", "u8", "0"), ("bitfield_ro", "k", "get", "u8", "0"),
    ("bitop", "and", "d", "a", "b"), ("pfmerge", "d", "a", "b"), ("pfmerge", "d"),
    ("pfcount", "a", "b"), ("lcs", "a", "b", "len"), ("touch", "a", "b"), ("unlink", "a"),
    ("watch", "a", "b"), ("exists", "a", "a"), ("spublish", "ch", "m"),
    ("ssubscribe", "a", "b"), ("publish", "ch", "m"), ("getex", "k", "persist"),
    ("getdel", "k"), ("restore", "k", "0", "x"), ("dump", "k"), ("expire", "k", "1"),
    ("hset", "h", "f", "v"), ("sort", "a", "by"), ("ping", "x"), ("nosuch", "x"),
    ("command", "info"), ("client", "kill", "x"), ("function", "load", "x"),
    ("config", "get", "x"), ("debug", "object", "k"),
]


def commands(port):
    """Every command and subcommand name (lower case) the server lists in COMMAND INFO."""
    with Raw(port) as c:
        info = parse(c.call("COMMAND", "INFO"))
    names = set()
    for entry in info:
        names.add(entry[0].decode())
        names.update(sub[0].decode() for sub in entry[9])
    return names


def plain_lines(names):
    """Each name with 0..6 plain arguments (a container's subcommand after its name)."""
    out = []
    for name in sorted(names):
        head = name.split("|")
        for n in range(0, 7):
            out.append((*head, *[f"a{i}" for i in range(n)]))
    return out


class GetKeys(sidebyside.SideBySideCase):
    def compare(self, lines, resp=2):
        with Raw(self.ref.port) as a, Raw(self.cand.port) as b:
            if resp == 3:
                a.call("HELLO", "3")
                b.call("HELLO", "3")
            for line in lines:
                for sub in ("GETKEYS", "GETKEYSANDFLAGS"):
                    with self.subTest(sub=sub, line=line, resp=resp):
                        want = a.call("COMMAND", sub, *line)
                        self.assertEqual(b.call("COMMAND", sub, *line), want)

    def test_sort_store_key(self):
        with Raw(self.cand.port) as c:
            self.assertEqual(c.call("COMMAND", "GETKEYS", "sort", "abc", "store", "def"),
                             b"*2\r\n$3\r\nabc\r\n$3\r\ndef\r\n")
            self.assertEqual(c.call("COMMAND", "GETKEYS", "sort", "abc", "store", "invalid",
                                    "store", "stillbad", "store", "def"),
                             b"*2\r\n$3\r\nabc\r\n$3\r\ndef\r\n")
            self.assertEqual(c.call("COMMAND", "GETKEYSANDFLAGS", "sort", "abc", "store", "d"),
                             b"*2\r\n*2\r\n$3\r\nabc\r\n*2\r\n+RO\r\n+access\r\n"
                             b"*2\r\n$1\r\nd\r\n*2\r\n+OW\r\n+update\r\n")
        self.compare(SORTS)
        self.compare(SORTS, resp=3)

    def test_hand_written_lines(self):
        self.compare(LINES)
        self.compare(LINES, resp=3)

    def test_every_command_with_plain_arguments(self):
        names = commands(self.ref.port) & commands(self.cand.port)
        self.assertGreater(len(names), 200)
        self.compare(plain_lines(names))
        self.compare(plain_lines(names), resp=3)

    def test_command_info_and_docs_of_getkeysandflags(self):
        with Raw(self.ref.port) as a, Raw(self.cand.port) as b:
            for resp in (2, 3):
                a.call("HELLO", str(resp))
                b.call("HELLO", str(resp))
                for line in (("COMMAND", "INFO", "command|getkeysandflags"),
                             ("COMMAND", "DOCS", "command|getkeysandflags"),
                             ("COMMAND", "GETKEYSANDFLAGS"), ("COMMAND", "GETKEYSANDFLAGS", "get")):
                    with self.subTest(line=line, resp=resp):
                        self.assertEqual(b.call(*line), a.call(*line))

    def test_acl_key_permissions_on_the_store_key(self):
        """A user with ~src*, %W~dst* (write only) and %R~ro* may SORT src* STORE dst*, not
        STORE elsewhere, and not read through dst*; the denial as Redis's. The keys share a
        hash tag, so that the proxy runs each SORT on one worker."""
        setup = [("ACL", "SETUSER", "sorter", "on", "nopass", "+@all", "~src*", "%W~dst*",
                  "%R~ro*")]
        cases = [("SORT", "src1"), ("SORT", "src1", "STORE", "dst1"),
                 ("SORT", "src1", "STORE", "other"), ("SORT", "src1", "STORE", "ro1"),
                 ("SORT", "src1", "STORE", "other", "STORE", "dst1"),
                 ("SORT", "src1", "STORE", "dst1", "STORE", "other"),
                 ("SORT", "dst1", "STORE", "dst2"), ("SORT", "ro1"),
                 ("SORT", "ro1", "STORE", "dst1"),
                 ("SORT", "src1", "LIMIT", "0", "1", "STORE", "dst1"),
                 ("SORT", "src1", "STORE", "GET", "STORE", "dst1"),
                 ("SORT_RO", "src1"), ("SORT_RO", "dst1"), ("SORT_RO", "ro1"),
                 ("SORT_RO", "src1", "STORE", "other")]
        tag = lambda w: w + "{t}" if w[:3] in ("src", "dst", "ro1", "oth") else w  # noqa: E731
        cases = [tuple(tag(w) for w in line) for line in cases]
        with Raw(self.ref.port) as a, Raw(self.cand.port) as b:
            for line in setup:
                self.assertEqual(b.call(*line), a.call(*line))
            self.assertEqual(a.call("AUTH", "sorter", "x"), b"+OK\r\n")
            self.assertEqual(b.call("AUTH", "sorter", "x"), b"+OK\r\n")
            for line in cases:
                with self.subTest(line=line):
                    self.assertEqual(b.call(*line), a.call(*line))
            self.assertEqual(b.call("SORT", "src1{t}", "STORE", "other{t}"),
                             b"-NOPERM this user has no permissions to access one of the keys "
                             b"used as arguments\r\n")
        with Raw(self.ref.port) as a, Raw(self.cand.port) as b:
            for c in (a, b):
                c.call("ACL", "DELUSER", "sorter")


class GetKeysProxy(GetKeys):
    workers = 2

    def test_sort_store_across_workers(self):
        """Through the proxy the router sees the STORE key: one owner runs the SORT, keys of
        both workers are -CROSSSLOT (a hash tag keeps them together)."""
        src = "{t}src"
        home = itest.owner(src)
        other = itest.keys_of(1 - home, 1, "dst")[0]
        mine = itest.keys_of(home, 1, "dst")[0]
        with Raw(self.cand.port) as c:
            self.assertEqual(c.call("RPUSH", src, "3", "1", "2"), b":3\r\n")
            self.assertEqual(c.call("SORT", src, "STORE", other),
                             b"-CROSSSLOT Keys in request don't hash to the same slot\r\n")
            self.assertEqual(c.call("EXISTS", other), b":0\r\n")
            self.assertEqual(c.call("SORT", src, "STORE", other, "STORE", "{t}dst"), b":3\r\n")
            self.assertEqual(c.call("LRANGE", "{t}dst", "0", "-1"),
                             b"*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n")
            self.assertEqual(c.call("SORT", src, "DESC", "STORE", mine), b":3\r\n")
            self.assertEqual(c.call("LRANGE", mine, "0", "-1"),
                             b"*3\r\n$1\r\n3\r\n$1\r\n2\r\n$1\r\n1\r\n")
            self.assertEqual(c.call("MULTI"), b"+OK\r\n")
            self.assertEqual(c.call("SORT", src, "STORE", other), b"+QUEUED\r\n")
            self.assertEqual(c.call("EXEC"),
                             b"-CROSSSLOT Keys in request don't hash to the same slot\r\n")


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class SortStoreClusterPort(unittest.TestCase):
    """On the direct (cluster) port a SORT … STORE whose keys are in two slots is -CROSSSLOT,
    as on a --cluster-enabled redis-server; in one slot it runs."""

    def test_crossslot_like_redis_cluster(self):
        import test_cluster
        self.addCleanup(test_cluster.tearDownModule)
        ref = test_cluster.cluster_redis_port()
        lines = [("RPUSH", "{s}src", "2", "1"), ("SORT", "{s}src", "STORE", "elsewhere"),
                 ("SORT", "{s}src", "STORE", "elsewhere", "STORE", "{s}dst"),
                 ("SORT", "{s}src", "STORE", "{s}dst", "STORE", "elsewhere"),
                 ("SORT", "{s}src", "LIMIT", "0", "1", "STORE", "{s}dst"),
                 ("LRANGE", "{s}dst", "0", "-1"), ("EXISTS", "elsewhere"),
                 ("SORT_RO", "{s}src", "STORE", "elsewhere"),
                 ("MULTI",), ("SORT", "{s}src", "STORE", "elsewhere"), ("EXEC",)]
        with harness.Server(kind="ruvio", args=["--workers", "1"]) as srv:
            with Raw(srv.port + 1) as d, Raw(ref) as r:
                r.call("FLUSHALL")
                for line in lines:
                    with self.subTest(line=line):
                        self.assertEqual(d.call(*line), r.call(*line))
                r.call("FLUSHALL")


if __name__ == "__main__":
    unittest.main()
