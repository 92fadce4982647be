"""Differential test of bitmaps, BITFIELD and HyperLogLog: gen_bits' seeded stream goes to
Ruvio and to redis-server 7.0.15 and every reply must be byte-identical, GET of HLL keys
included (the HLL bytes are Redis's). At 1 worker and through the proxy port of a 2-worker
Ruvio, where BITOP, PFCOUNT of several keys and PFMERGE over keys of different owners must
answer CROSSSLOT (and are not sent to redis-server). A second test adds 100,000 random
elements to one HLL and compares PFCOUNT and the bytes at every step of 5,000.

Env: RUVIO_DIFF_SEED (printed; replays a run), RUVIO_BITS_DIFF_COMMANDS (default 20000).
"""

import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gen_bits  # noqa: E402
import harness  # noqa: E402
import sidebyside  # noqa: E402
import test_differential as td  # noqa: E402
from cmdgen import Cmd  # noqa: E402

class BitsRun(td.DiffRun):
    unsplit = {
        b"BITOP": lambda a: a[2:],
        b"PFCOUNT": lambda a: a[1:],
        b"PFMERGE": lambda a: a[1:],
    }

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.gen = gen_bits.Generator(self.seed)


def run_bits_differential(seed, count, workers, against="ruvio"):
    return td.run_pair(lambda rp, cp: BitsRun(seed, rp, cp, against, count, workers), against,
                       workers)


def run_hll_bulk(seed, total, step, workers):
    """`total` random elements into one HLL in PFADDs of `step`; after each, PFCOUNT and
    GET must match (the sparse form, the crossing and the dense form)."""
    r = random.Random(seed)
    with sidebyside.pair(workers) as (ref, cand):
        run = BitsRun(seed, ref.port, cand.port, "ruvio", 0, workers)
        try:
            for k in (b"bulk", b"{t}bulk2"):
                added = 0
                while added < total:
                    n = min(step, total - added) if added else r.randint(1, 50)
                    elems = [b"%x" % r.getrandbits(64) for _ in range(n)]
                    run.run_batch([Cmd([b"PFADD", k] + elems), Cmd([b"PFCOUNT", k]),
                                   Cmd([b"PFDEBUG", b"ENCODING", k]), Cmd([b"GET", k])])
                    added += n
            run.run_batch([Cmd([b"PFCOUNT", b"bulk", b"bulk"]), Cmd([b"PFMERGE", b"bulk", b"bulk"]),
                           Cmd([b"GET", b"bulk"])])
            return run.stats
        finally:
            run.close()


class BitsDifferentialTest(td.FamilyDiffTest, unittest.TestCase):
    family = "bits"
    keys = gen_bits.BIT_KEYS
    count_env = "RUVIO_BITS_DIFF_COMMANDS"

    def run_family(self, seed, count, workers, against):
        return run_bits_differential(seed, count, workers, against)

    def check(self, stats, workers):
        super().check(stats, workers)
        if workers > 1:
            self.assertGreater(stats["crossslot"], 0)
            self.assertEqual({harness.key_owner(k) for k in gen_bits.HLL_KEYS}, {0, 1})

    def test_hll_100000_random_adds(self):
        if not os.path.exists(harness.RUVIO_BIN):
            self.skipTest(f"{harness.RUVIO_BIN} not built")
        seed = td.diff_seed()
        print(f"\nhll bulk differential: seed={seed}", file=sys.stderr)
        stats = run_hll_bulk(seed, 100000, 5000, 1)
        self.assertGreater(stats["sent"], 80)

    def test_hll_bulk_2_workers(self):
        if not os.path.exists(harness.RUVIO_BIN):
            self.skipTest(f"{harness.RUVIO_BIN} not built")
        stats = run_hll_bulk(td.diff_seed(), 20000, 2000, 2)
        self.assertGreater(stats["sent"], 40)


if __name__ == "__main__":
    unittest.main()
