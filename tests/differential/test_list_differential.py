"""Differential test of the list family: gen_list's seeded stream of list commands and their
neighbours goes to Ruvio and to redis-server 7.0.15; every reply must be byte-identical.
Runs at 1 worker and through the proxy port of a 2-worker Ruvio (there, LMOVE, RPOPLPUSH
and LMPOP whose keys have different owners must answer CROSSSLOT and are not sent to
redis-server), and at 1 worker with list-compress-depth 1 and 2 on both servers (the stream's
CONFIG SET of 1- and 2-entry nodes makes chains long enough for inner nodes to compress).

Env: RUVIO_DIFF_SEED (printed; replays a run), RUVIO_LIST_DIFF_COMMANDS (default 20000).
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gen_list  # noqa: E402
import test_differential as td  # noqa: E402


def _lmpop_keys(args):
    try:
        n = int(args[1])
    except ValueError:
        return []
    if n < 1 or 2 + n >= len(args):
        return []  # the command's own syntax error, wherever it runs
    return args[2:2 + n]


MULTI_KEY = {
    b"LMOVE": lambda a: a[1:3] if len(a) == 5 else [],  # a wrong arity is answered first
    b"RPOPLPUSH": lambda a: a[1:3] if len(a) == 3 else [],
    b"LMPOP": _lmpop_keys,
    b"RENAME": lambda a: a[1:3],
    b"RENAMENX": lambda a: a[1:3],
    b"COPY": lambda a: a[1:3],
    b"EXISTS": lambda a: [],  # split per owner
}


class ListRun(td.DiffRun):
    unsplit = MULTI_KEY

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.gen = gen_list.Generator(self.seed)


def run_list_differential(seed, count, workers, depth=0, against="ruvio"):
    both = ["--list-compress-depth", str(depth)] if depth else []
    return td.run_pair(lambda rp, cp: ListRun(seed, rp, cp, against, count, workers), against,
                       workers, ref_args=both, cand_args=both)


class ListDifferentialTest(td.FamilyDiffTest, unittest.TestCase):
    family = "list"
    keys = gen_list.LIST_KEYS
    count_env = "RUVIO_LIST_DIFF_COMMANDS"
    depth = 0  # list-compress-depth on both servers

    def run_family(self, seed, count, workers, against):
        return run_list_differential(seed, count, workers, self.depth, against)

    def test_against_redis_compress_depth_1(self):
        self.depth = 1  # this test's own instance
        self.run_checked(1)

    def test_against_redis_compress_depth_2(self):
        self.depth = 2
        self.run_checked(1)


if __name__ == "__main__":
    unittest.main()
