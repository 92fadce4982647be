"""Sorted-set differential test: gen_zset.py's seeded stream of ZADD … ZSCAN mixed with
DEL/EXISTS/TYPE/OBJECT ENCODING/EXPIRE/RENAME/COPY goes to Ruvio and to redis-server, and
every reply must match byte for byte (ZRANDMEMBER and ZSCAN by the rules in gen_zset.py), at
1 worker and through the proxy port of a 2-worker Ruvio. The runner is test_differential.py's.

Env (as test_differential.py): RUVIO_DIFF_SEED (printed on every run and on failure),
RUVIO_ZSET_COMMANDS (default 20000), RUVIO_DIFF_AGAINST=redis checks the harness itself.
"""

import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gen_zset  # noqa: E402
import harness  # noqa: E402
import test_differential as td  # noqa: E402
from resp_raw import parse  # noqa: E402


def _flat(v):
    return [x for x in v] if isinstance(v, list) else v


def _zrand_match(args, a, b):
    if a[:1] != b[:1]:
        return False
    if a[:1] in (b"-", b"_") or a.startswith(b"$-1") or b.startswith(b"$-1"):
        return a == b
    if a[:1] == b"$":
        return True
    try:
        pa, pb = parse(a), parse(b)
    except Exception:
        return False
    if not isinstance(pa, list) or not isinstance(pb, list) or len(pa) != len(pb):
        return False
    count = int(args[2])
    if count > 0:
        flat = len(args) > 3 and pa and not isinstance(pa[0], list)  # RESP2 WITHSCORES
        ka = [repr(x) for x in (list(zip(pa[::2], pa[1::2])) if flat else pa)]
        kb = [repr(x) for x in (list(zip(pb[::2], pb[1::2])) if flat else pb)]
        if len(set(kb)) != len(kb):
            return False
        if len(ka) < count:  # fewer than asked: the whole zset
            return sorted(ka) == sorted(kb)
    return True


def _zscan_match(a, b):
    if a[:1] != b[:1]:
        return False
    if a[:1] == b"-":
        return a == b
    try:
        pa, pb = parse(a), parse(b)
    except Exception:
        return False
    if not (isinstance(pa, list) and isinstance(pb, list) and len(pa) == 2 and len(pb) == 2):
        return False
    if pa[0] == b"0" and pb[0] == b"0":
        ea, eb = pa[1], pb[1]
        return sorted(zip(ea[::2], ea[1::2])) == sorted(zip(eb[::2], eb[1::2]))
    return True


class ZsetDiffRun(td.DiffRun):
    def __init__(self, seed, ref_port, cand_port, cand_name, count, workers=1):
        super().__init__(seed, ref_port, cand_port, cand_name, count, workers)
        self.gen = gen_zset.ZsetGenerator(seed)

    def run_batch(self, cmds):
        cross = [self.crossslot(c) for c in cmds]
        self.ref.send(b"".join(td.encode(c.args) for c, x in zip(cmds, cross) if not x))
        self.cand.send(b"".join(td.encode(c.args) for c in cmds))
        ref_replies = [td.CROSSSLOT if x else self._read(self.ref, "redis-server", c)
                       for c, x in zip(cmds, cross)]
        self.stats["crossslot"] += sum(cross)
        cand_replies = [self._read(self.cand, self.cand_name, c) for c in cmds]
        for c, a, b in zip(cmds, ref_replies, cand_replies):
            self.history.append((self.index, td._short(b" ".join(c.args), 120)))
            if c.kind == "zrand":
                ok = _zrand_match(c.args, a, b)
            elif c.kind == "zscan":
                ok = _zscan_match(a, b)
            else:
                ok = td.replies_match(c.kind, a, b)
            if not ok:
                self.fail(c.args, c.kind, a, b)
            self.index += 1
        self.stats["sent"] += len(cmds)
        if self.proto == 3:
            self.stats["resp3"] += len(cmds)
        return ref_replies


def run_zset_differential(seed, count, against="ruvio", workers=1):
    return td.run_pair(lambda rp, cp: ZsetDiffRun(seed, rp, cp, against, count, workers),
                       against, workers)


_seed = td.diff_seed


def _count():
    return int(os.environ.get("RUVIO_ZSET_COMMANDS", "20000"))


class ZsetDifferentialTest(unittest.TestCase):
    def test_zset_against_redis(self):
        against = os.environ.get("RUVIO_DIFF_AGAINST", "ruvio")
        if against == "ruvio" and not os.path.exists(harness.RUVIO_BIN):
            self.skipTest(f"{harness.RUVIO_BIN} not built")
        seed, count = _seed(), _count()
        print(f"\nzset differential vs {against}: seed={seed}", file=sys.stderr)
        stats = run_zset_differential(seed, count, against)
        print(f"zset differential vs {against}: seed={seed} {stats}", file=sys.stderr)
        self.assertGreaterEqual(stats["sent"], count)
        self.assertGreater(stats["resp3"], 0)

    def test_zset_against_redis_2_workers(self):
        if not os.path.exists(harness.RUVIO_BIN):
            self.skipTest(f"{harness.RUVIO_BIN} not built")
        owners = {harness.key_owner(k) for k in gen_zset.KEYS}
        self.assertEqual(owners, {0, 1})
        seed, count = _seed(), _count()
        print(f"\nzset differential vs ruvio --workers 2: seed={seed}", file=sys.stderr)
        stats = run_zset_differential(seed, count, "ruvio", workers=2)
        print(f"zset differential vs ruvio --workers 2: seed={seed} {stats}", file=sys.stderr)
        self.assertGreaterEqual(stats["sent"], count)

    def test_zset_harness_redis_vs_redis(self):
        stats = run_zset_differential(_seed(), 3000, "redis")
        self.assertGreaterEqual(stats["sent"], 3000)


if __name__ == "__main__":
    unittest.main()
