"""Differential test of the set family: the same seeded random stream of set commands (mixed
with DEL/EXISTS/TYPE/OBJECT ENCODING/EXPIRE/TTL/RENAME/COPY, wrong types and bad arguments,
gen_set.py) goes to Ruvio and to a real redis-server 7.0.15; replies are compared byte for
byte except where gen_set.py's kinds say why not (unordered replies, random members, the
one intended encoding difference: small non-integer sets are listpack as Redis 7.2, where
7.0 says hashtable).

Env (as test_differential.py):
  RUVIO_DIFF_SEED      the seed (default: random; printed on every run and failure)
  RUVIO_DIFF_COMMANDS  commands per run (default 20000)
Through a 2-worker proxy port, multi-key commands whose keys have different owners must
answer CROSSSLOT: they are compared with that error and not sent to redis-server.
"""

import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gen_set  # noqa: E402
import test_differential as td  # noqa: E402
from cmdgen import Cmd  # noqa: E402
from resp_raw import encode, parse  # noqa: E402

HASHTABLE = b"$9\r\nhashtable\r\n"
LISTPACK = b"$8\r\nlistpack\r\n"
INTSET = b"$6\r\nintset\r\n"
SCAN_ROUNDS = 10000


def _sintercard_keys(args):
    try:
        k = int(args[1])
    except (ValueError, IndexError):
        return ()
    return args[2:2 + k] if 1 <= k <= len(args) - 2 else ()


# The multi-key commands of the stream that a multi-worker Ruvio does not split.
UNSPLIT = {
    **{name: lambda a: a[1:3] for name in (b"RENAME", b"COPY", b"SMOVE")},
    **{name: lambda a: a[1:] for name in (b"SINTER", b"SUNION", b"SDIFF", b"SINTERSTORE",
                                          b"SUNIONSTORE", b"SDIFFSTORE")},
    b"SINTERCARD": _sintercard_keys,
}


def _sorted(raw):
    v = parse(raw)
    return sorted(v) if isinstance(v, list) else v


class SetDiffRun(td.DiffRun):
    unsplit = UNSPLIT

    def __init__(self, seed, ref_port, cand_port, count, workers=1):
        super().__init__(seed, ref_port, cand_port, "ruvio", count, workers)
        self.gen = gen_set.SetGenerator(seed)
        self.sched = random.Random(seed ^ 0x5E7)
        self.stats.update({"resynced": 0, "encoding_listpack_vs_hashtable": 0,
                           "intset_exact": 0, "encodings_seen": set()})

    def both(self, args):
        """Sends to both servers; returns (redis reply, ruvio reply)."""
        cmd = Cmd(args)
        if self.crossslot(cmd):
            self.stats["crossslot"] += 1
            return td.CROSSSLOT, self.cand.call(*args)
        self.ref.send(encode(args))
        self.cand.send(encode(args))
        return (self._read(self.ref, "redis-server", cmd),
                self._read(self.cand, self.cand_name, cmd))

    def ref_members(self, key):
        v = parse(self.ref.call(b"SMEMBERS", key))
        return v if isinstance(v, list) else []

    def ref_encoding(self, key):
        return self.ref.call(b"OBJECT", b"ENCODING", key)

    # ---- comparisons -------------------------------------------------------------------

    def same(self, kind, a, b, extra=None):
        if kind == "encoding" and b[:1] == b"$":
            self.stats["encodings_seen"].add(b"ruvio:" + b)
        if a == b:
            return True
        if a[:1] == b"-" or b[:1] == b"-":
            return False
        if kind == "ttl_s":
            x, y = parse(a), parse(b)
            return isinstance(x, int) and isinstance(y, int) and x >= 0 and abs(x - y) <= 1
        if kind == "encoding":
            if a == HASHTABLE and b == LISTPACK:
                self.stats["encoding_listpack_vs_hashtable"] += 1
                return True
            return False
        if kind in ("sorted", "members"):
            if kind == "members" and extra == INTSET:
                return False  # ordered on both sides: exact
            return a[:1] == b[:1] and _sorted(a) == _sorted(b)
        return False

    def check_random(self, args, a, b, members):
        """SRANDMEMBER / SPOP: same shape and size; Ruvio's members are members, distinct
        unless the count is negative."""
        if a[:1] == b"-" or b[:1] == b"-" or a[:1] in (b"_", b"$") and parse(a) is None:
            return a == b
        va, vb = parse(a), parse(b)
        if isinstance(va, bytes):
            return isinstance(vb, bytes) and vb in members
        if not isinstance(va, list) or not isinstance(vb, list) or a[:1] != b[:1]:
            return False
        if len(va) != len(vb) or any(m not in members for m in vb):
            return False
        negative = len(args) == 3 and args[2].startswith(b"-")
        return negative or len(set(vb)) == len(vb)

    def scan_all(self, conn, args):
        """Every member a full SSCAN iteration with args' MATCH/COUNT returns."""
        got = set()
        cursor = b"0"
        for _ in range(SCAN_ROUNDS):
            v = parse(conn.call(*(args[:2] + [cursor] + args[3:])))
            cursor, items = v[0], v[1]
            got.update(items)
            if cursor == b"0":
                return got
        raise td.Mismatch(f"SSCAN did not finish in {SCAN_ROUNDS} rounds: {args}")

    # ---- running -----------------------------------------------------------------------

    def record(self, args):
        self.history.append((self.index, td._short(b" ".join(args), 120)))
        self.index += 1
        self.stats["sent"] += 1
        if self.proto == 3:
            self.stats["resp3"] += 1

    def run_one(self, cmd):
        args = cmd.args
        kind = cmd.kind
        extra = None
        members = None
        if len(args) < 2:
            kind = "exact"  # an arity error
        if kind in ("members", "scan"):
            extra = self.ref_encoding(args[1])
            self.stats["encodings_seen"].add(extra)
        if kind in ("random", "pop"):
            members = set(self.ref_members(args[1]))
        a, b = self.both(args)
        self.record(args)
        if kind in ("random", "pop"):
            if not self.check_random(args, a, b, members):
                self.fail(args, kind, a, b)
            if kind == "pop":
                self.resync(args[1])
            return
        if kind == "scan":
            if a[:1] == b"-" or b[:1] == b"-" or extra == INTSET:
                if extra == INTSET and a == b:
                    self.stats["intset_exact"] += 1
                if a != b:
                    self.fail(args, kind, a, b)
                return
            if a[:1] != b[:1] or self.scan_all(self.ref, args) != self.scan_all(self.cand, args):
                self.fail(args, kind, a, b, note=" (full iteration)")
            return
        if kind == "members" and extra == INTSET and a == b:
            self.stats["intset_exact"] += 1
        if not self.same(kind, a, b, extra):
            self.fail(args, kind, a, b)

    def resync(self, key):
        """After SPOP both sets lost different random members: give Ruvio's key redis-server's
        members again, the same way on both sides (DEL + one SADD)."""
        members = self.ref_members(key)
        for args in ([b"DEL", key], [b"SADD", key] + members) if members else ([b"DEL", key],):
            a, b = self.both(args)
            if a != b:
                self.fail(args, "exact", a, b, note=" (resync after SPOP)")
        self.stats["resynced"] += 1

    def match(self, cmd, a, b):
        return self.same(cmd.kind, a, b)

    def run(self):
        for db in (b"0", b"1"):
            self.both([b"SELECT", db])
            self.both([b"FLUSHDB"])
        self.both([b"SELECT", b"0"])
        segment = -1
        plain = ("exact", "sorted", "encoding", "ttl_s")
        while self.stats["sent"] < self.count:
            seg = self.stats["sent"] // td.SEGMENT
            if seg != segment:
                segment = seg
                want = 3 if seg % 3 == 1 else 2
                if want != self.proto:
                    self.switch_proto(want)
            if self.sched.random() < 0.3:
                batch = []
                for _ in range(self.sched.randint(1, 30)):
                    c = self.gen.next()
                    if c.kind not in plain:
                        break
                    batch.append(c)
                if batch:
                    self.run_batch(batch)
                    self.stats["pipelined"] += len(batch)
                if len(batch) < 30 and c.kind not in plain:
                    self.run_one(c)
            else:
                for _ in range(self.sched.randint(1, 20)):
                    self.run_one(self.gen.next())
        self.stats["encodings_seen"] = sorted(self.stats["encodings_seen"])
        return self.stats


def run_set_differential(seed, count, workers=1, against="ruvio"):
    return td.run_pair(lambda rp, cp: SetDiffRun(seed, rp, cp, count, workers), against, workers)


class SetDifferentialTest(td.FamilyDiffTest, unittest.TestCase):
    family = "set"
    keys = gen_set.SET_KEYS

    def run_family(self, seed, count, workers, against):
        return run_set_differential(seed, count, workers, against)

    def check(self, stats, workers):
        super().check(stats, workers)
        if self.against != "ruvio":
            return  # a harness check (RUVIO_DIFF_AGAINST=redis): redis-server's encodings
        # The stream crossed every encoding on redis-server's side.
        for enc in (INTSET, HASHTABLE):
            self.assertIn(enc, stats["encodings_seen"])
        for enc in (INTSET, LISTPACK, HASHTABLE):
            self.assertIn(b"ruvio:" + enc, stats["encodings_seen"])
        if workers > 1:
            self.assertGreater(stats["crossslot"], 0)

    def test_comparator(self):
        run = SetDiffRun.__new__(SetDiffRun)
        run.stats = {"encoding_listpack_vs_hashtable": 0, "encodings_seen": set()}
        self.assertTrue(run.same("encoding", HASHTABLE, LISTPACK))
        self.assertFalse(run.same("encoding", LISTPACK, HASHTABLE))
        self.assertFalse(run.same("encoding", INTSET, LISTPACK))
        self.assertTrue(run.same("sorted", b"*2\r\n$1\r\na\r\n$1\r\nb\r\n",
                                 b"*2\r\n$1\r\nb\r\n$1\r\na\r\n"))
        self.assertFalse(run.same("members", b"*2\r\n$1\r\n1\r\n$1\r\n2\r\n",
                                  b"*2\r\n$1\r\n2\r\n$1\r\n1\r\n", INTSET))
        self.assertFalse(run.same("sorted", b"~1\r\n$1\r\na\r\n", b"*1\r\n$1\r\na\r\n"))


if __name__ == "__main__":
    unittest.main()
