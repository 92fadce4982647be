"""Differential test of the hash family: gen_hash's seeded stream of HSET … HSCAN mixed with
DEL/EXISTS/TYPE/OBJECT ENCODING/EXPIRE/RENAME/COPY goes to Ruvio and to redis-server through
test_differential's runner (pipelines, RESP2/RESP3 segments, CROSSSLOT at 2 workers).

Env: RUVIO_DIFF_SEED (printed; set it to replay), RUVIO_HASH_DIFF_COMMANDS (default 20000).
Replies are byte-identical except where Redis's own order or randomness is not reproducible
(the compare kinds of gen_hash's docstring: pairs, multiset, hscan, hrand).
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import cmdgen  # noqa: E402
import gen_hash  # noqa: E402
import test_differential as td  # noqa: E402
from resp_raw import encode, parse  # noqa: E402

def _pairs(v):
    """A parsed HGETALL (RESP2 flat list, or RESP3 map parsed as pairs) as a list of pairs."""
    if v and isinstance(v[0], (tuple, list)):
        return [tuple(p) for p in v]
    return list(zip(v[::2], v[1::2]))


def _norm(v):
    return sorted(v, key=repr)


class Expect:
    """What the runner read of the hash right before an HRANDFIELD."""
    pairs = {}
    withvalues = False
    distinct = False


def _hrand_ok(a, b):
    pa, pb = parse(a), parse(b)
    if not isinstance(pa, list) or not isinstance(pb, list) or len(pa) != len(pb):
        return False
    if Expect.withvalues:
        if pb and isinstance(pb[0], list):  # RESP3: [field, value] pairs
            if not all(isinstance(p, list) and len(p) == 2 for p in pa + pb):
                return False
            got = [tuple(p) for p in pb]
        else:
            got = list(zip(pb[::2], pb[1::2]))
        if not all(f in Expect.pairs and Expect.pairs[f] == v for f, v in got):
            return False
        fields = [f for f, _ in got]
    else:
        if not all(f in Expect.pairs for f in pb):
            return False
        fields = pb
    return not Expect.distinct or len(set(fields)) == len(fields)


def hash_replies_match(kind, a, b):
    if a == b:
        return True
    if kind not in ("pairs", "multiset", "hscan", "hrand", "hrand1"):
        return td.replies_match(kind, a, b)
    if a[:1] == b"-" or b[:1] == b"-" or a[:1] != b[:1]:
        return False
    pa, pb = parse(a), parse(b)
    if kind == "pairs":
        return _norm(_pairs(pa)) == _norm(_pairs(pb))
    if kind == "multiset":
        return _norm(pa) == _norm(pb)
    if kind == "hscan":
        # Not from cursor 0 (hscan_full takes those): the shape only, since a cursor is a
        # position in a table whose layout is each server's own.
        return (len(pa) == 2 and len(pb) == 2 and isinstance(pb[1], list)
                and len(pb[1]) % 2 == 0)
    if kind == "hrand1":
        return pb in Expect.pairs
    return _hrand_ok(a, b)


class HashDiffRun(td.DiffRun):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.gen = gen_hash.HashGenerator(self.seed)
        self.stats["hrand"] = 0
        self.stats["hashtable"] = 0  # OBJECT ENCODING replies naming each encoding
        self.stats["listpack"] = 0

    def match(self, cmd, a, b):
        return hash_replies_match(cmd.kind, a, b)

    def run_batch(self, cmds):
        replies = super().run_batch(cmds)
        for r in replies:
            if r == b"$9\r\nhashtable\r\n":
                self.stats["hashtable"] += 1
            elif r == b"$8\r\nlistpack\r\n":
                self.stats["listpack"] += 1
        return replies

    def _scan_rest(self, conn, name, cmd, raw):
        """Follows one server's HSCAN from its first reply to cursor 0: the pairs seen."""
        pairs = set()
        for _ in range(10000):
            p = parse(raw)
            pairs.update(_pairs(p[1]))
            if p[0] == b"0":
                return pairs
            args = list(cmd.args)
            args[2] = p[0]
            conn.send(encode(args))
            raw = self._read(conn, name, cmd)
        self.fail(cmd.args, "hscan", b"", b"<no end of iteration>")

    def hscan_full(self, cmd):
        self.ref.send(encode(cmd.args))
        self.cand.send(encode(cmd.args))
        a = self._read(self.ref, "redis-server", cmd)
        b = self._read(self.cand, self.cand_name, cmd)
        self.history.append((self.index, " ".join(map(repr, cmd.args))[:120]))
        if a[:1] == b"-" or b[:1] == b"-" or a[:1] != b[:1]:
            if a != b:
                self.fail(cmd.args, "hscan", a, b)
        elif self._scan_rest(self.ref, "redis-server", cmd, a) != self._scan_rest(
                self.cand, self.cand_name, cmd, b):
            self.fail(cmd.args, "hscan", a, b, note=" (full iteration)")
        self.index += 1
        self.stats["sent"] += 1
        return a

    def run_one(self, cmd):
        if cmd.kind == "hscan" and cmd.args[2] == b"0":
            return self.hscan_full(cmd)
        if cmd.kind in ("hrand", "hrand1"):
            raw = super().run_one(cmdgen.Cmd([b"HGETALL", cmd.args[1]], "pairs"))
            p = parse(raw)
            Expect.pairs = dict(_pairs(p)) if isinstance(p, list) else {}
            Expect.withvalues = len(cmd.args) == 4 and cmd.args[3].lower() == b"withvalues"
            try:
                Expect.distinct = int(cmd.args[2]) > 0
            except (ValueError, IndexError):
                Expect.distinct = False
            self.stats["hrand"] += 1
        return super().run_one(cmd)


# redis-server's compiled-in default is 512 (its redis.conf says 128, as Ruvio's default).
REDIS_ARGS = ["--hash-max-listpack-entries", "128", "--hash-max-listpack-value", "64"]


def run_hash_differential(seed, count, workers=1, against="ruvio"):
    return td.run_pair(lambda rp, cp: HashDiffRun(seed, rp, cp, against, count, workers),
                       against, workers, ref_args=REDIS_ARGS)


class HashDifferentialTest(td.FamilyDiffTest, unittest.TestCase):
    family = "hash"
    keys = gen_hash.HKEYS
    count_env = "RUVIO_HASH_DIFF_COMMANDS"

    def run_family(self, seed, count, workers, against):
        return run_hash_differential(seed, count, workers, against)

    def check(self, stats, workers):
        super().check(stats, workers)
        self.assertGreater(stats["hrand"], 0)
        self.assertGreater(stats["hashtable"], 100)  # both encodings were met, often
        self.assertGreater(stats["listpack"], 100)


if __name__ == "__main__":
    unittest.main()
