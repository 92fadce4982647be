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
import harness  # noqa: E402
import test_differential as td  # noqa: E402
from cmdgen import Cmd  # noqa: E402
from resp_raw import RawConn, encode, parse  # noqa: E402

SEGMENT = 2500  # commands per protocol segment; every third segment runs in RESP3
HISTORY = int(os.environ.get("RUVIO_DIFF_HISTORY", "15"))
CROSSSLOT = b"-CROSSSLOT Keys in request don't hash to the same slot\r\n"
HASHTABLE = b"$9\r\nhashtable\r\n"
LISTPACK = b"$8\r\nlistpack\r\n"
INTSET = b"$6\r\nintset\r\n"
SCAN_ROUNDS = 10000


def key_positions(args):
    """The key arguments of the multi-key commands a multi-worker Ruvio does not split."""
    name = args[0].upper()
    n = len(args)
    if name in (b"RENAME", b"COPY", b"SMOVE"):
        return range(1, min(n, 3))
    if name in (b"SINTER", b"SUNION", b"SDIFF", b"SINTERSTORE", b"SUNIONSTORE",
                b"SDIFFSTORE"):
        return range(1, n)
    if name == b"SINTERCARD" and n > 2:
        try:
            k = int(args[1])
        except ValueError:
            return ()
        if 1 <= k <= n - 2:
            return range(2, 2 + k)
    return ()


def _short(b, n=400):
    return repr(b) if len(b) <= n else repr(b[:n]) + f"...(+{len(b) - n} bytes)"


class Mismatch(AssertionError):
    pass


def _sorted(raw):
    v = parse(raw)
    return sorted(v) if isinstance(v, list) else v


class SetDiffRun:
    def __init__(self, seed, ref_port, cand_port, count, workers=1):
        self.seed, self.count, self.workers = seed, count, workers
        self.gen = gen_set.SetGenerator(seed)
        self.sched = random.Random(seed ^ 0x5E7)
        self.ref = RawConn(ref_port)
        self.cand = RawConn(cand_port)
        self.index = 0
        self.proto = 2
        self.history = []
        self.stats = {"sent": 0, "pipelined": 0, "resp3": 0, "crossslot": 0, "resynced": 0,
                      "encoding_listpack_vs_hashtable": 0, "intset_exact": 0,
                      "encodings_seen": set()}

    def close(self):
        self.ref.close()
        self.cand.close()

    def fail(self, args, kind, a, b, note=""):
        hist = "\n".join(f"    #{i} {c}" for i, c in self.history[-HISTORY:])
        raise Mismatch(
            f"set differential mismatch{note}: seed={self.seed} (replay: RUVIO_DIFF_SEED="
            f"{self.seed} RUVIO_DIFF_COMMANDS={self.count}) workers={self.workers} command "
            f"#{self.index} RESP{self.proto} compare={kind}\n"
            f"  command: {_short(b' '.join(args), 600)}\n"
            f"  redis-server: {_short(a)}\n  ruvio: {_short(b)}\n"
            f"  previous commands:\n{hist}")

    def crossslot(self, args):
        if self.workers == 1:
            return False
        owners = {harness.key_owner(args[i], self.workers) for i in key_positions(args)}
        return len(owners) > 1

    def both(self, args):
        """Sends to both servers; returns (redis reply, ruvio reply)."""
        if self.crossslot(args):
            self.stats["crossslot"] += 1
            return CROSSSLOT, self.cand.call(*args)
        self.ref.send(encode(args))
        self.cand.send(encode(args))
        return self.ref.read_reply(), self.cand.read_reply()

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
        raise Mismatch(f"SSCAN did not finish in {SCAN_ROUNDS} rounds: {args}")

    # ---- running -----------------------------------------------------------------------

    def record(self, args):
        self.history.append((self.index, _short(b" ".join(args), 120)))
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

    def run_batch(self, cmds):
        """Pipelined plain comparisons: one write per server, then reply by reply."""
        cross = [self.crossslot(c.args) for c in cmds]
        self.ref.send(b"".join(encode(c.args) for c, x in zip(cmds, cross) if not x))
        self.cand.send(b"".join(encode(c.args) for c in cmds))
        ref = [CROSSSLOT if x else self.ref.read_reply() for x in cross]
        cand = [self.cand.read_reply() for _ in cmds]
        self.stats["crossslot"] += sum(cross)
        for c, a, b in zip(cmds, ref, cand):
            self.record(c.args)
            if not self.same(c.kind, a, b):
                self.fail(c.args, c.kind, a, b)
        self.stats["pipelined"] += len(cmds)

    def switch_proto(self, proto):
        a, b = self.both([b"HELLO", b"%d" % proto])
        want = b"%" if proto == 3 else b"*"
        if a[:1] != want or b[:1] != want:
            self.fail([b"HELLO"], "shape", a, b)
        self.proto = proto

    def run(self):
        for db in (b"0", b"1"):
            self.both([b"SELECT", db])
            self.both([b"FLUSHDB"])
        self.both([b"SELECT", b"0"])
        segment = -1
        plain = ("exact", "sorted", "encoding", "ttl_s")
        while self.stats["sent"] < self.count:
            seg = self.stats["sent"] // SEGMENT
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
                if len(batch) < 30 and c.kind not in plain:
                    self.run_one(c)
            else:
                for _ in range(self.sched.randint(1, 20)):
                    self.run_one(self.gen.next())
        self.stats["encodings_seen"] = sorted(self.stats["encodings_seen"])
        return self.stats


def run_set_differential(seed, count, workers=1, against="ruvio"):
    return td.run_pair(lambda rp, cp: SetDiffRun(seed, rp, cp, count, workers), against, workers)


_seed = td.diff_seed


class SetDifferentialTest(unittest.TestCase):
    def _run(self, workers):
        if not os.path.exists(harness.RUVIO_BIN):
            self.skipTest(f"{harness.RUVIO_BIN} not built")
        seed = _seed()
        count = int(os.environ.get("RUVIO_DIFF_COMMANDS", "20000"))
        print(f"\nset differential: seed={seed} workers={workers}", file=sys.stderr)
        stats = run_set_differential(seed, count, workers)
        print(f"set differential: seed={seed} workers={workers} {stats}", file=sys.stderr)
        self.assertGreaterEqual(stats["sent"], count)
        self.assertGreater(stats["resp3"], 0)
        self.assertGreater(stats["pipelined"], 0)
        # The stream crossed every encoding on redis-server's side.
        for enc in (INTSET, HASHTABLE):
            self.assertIn(enc, stats["encodings_seen"])
        for enc in (INTSET, LISTPACK, HASHTABLE):
            self.assertIn(b"ruvio:" + enc, stats["encodings_seen"])
        return stats

    def test_against_redis(self):
        self._run(1)

    def test_against_redis_2_workers(self):
        owners = {harness.key_owner(k) for k in gen_set.SET_KEYS}
        self.assertEqual(owners, {0, 1})
        stats = self._run(2)
        self.assertGreater(stats["crossslot"], 0)

    def test_harness_redis_vs_redis(self):
        """Two redis-servers agree under the same comparisons: the tolerances cover every
        legitimately random reply, so a mismatch against Ruvio is Ruvio's."""
        stats = run_set_differential(_seed(), 3000, against="redis")
        self.assertGreaterEqual(stats["sent"], 3000)

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
