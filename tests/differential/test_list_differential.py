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
import harness  # noqa: E402
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
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.gen = gen_list.Generator(self.seed)

    def crossslot(self, cmd):
        if self.workers == 1:
            return False
        keys = MULTI_KEY.get(cmd.args[0].upper(), lambda a: [])(cmd.args)
        owners = {harness.key_owner(k, self.workers) for k in keys}
        return len(owners) > 1


def run_list_differential(seed, count, workers, depth=0):
    both = ["--list-compress-depth", str(depth)] if depth else []
    return td.run_pair(lambda rp, cp: ListRun(seed, rp, cp, "ruvio", count, workers), "ruvio",
                       workers, ref_args=both, cand_args=both)


class ListDifferentialTest(unittest.TestCase):
    def _run(self, workers, depth=0):
        if not os.path.exists(harness.RUVIO_BIN):
            self.skipTest(f"{harness.RUVIO_BIN} not built")
        seed = td._seed()
        count = int(os.environ.get("RUVIO_LIST_DIFF_COMMANDS", "20000"))
        what = f"{workers} worker(s), list-compress-depth {depth}"
        print(f"\nlist differential, {what}: seed={seed}", file=sys.stderr)
        stats = run_list_differential(seed, count, workers, depth)
        print(f"list differential, {what}: seed={seed} {stats}", file=sys.stderr)
        self.assertGreaterEqual(stats["sent"], count)
        self.assertGreater(stats["resp3"], 0)
        self.assertGreater(stats["pipelined"], 0)

    def test_list_against_redis(self):
        self._run(1)

    def test_list_against_redis_2_workers(self):
        owners = {harness.key_owner(k) for k in gen_list.LIST_KEYS}
        self.assertEqual(owners, {0, 1})  # the list keys live on both workers
        self._run(2)

    def test_list_against_redis_compress_depth_1(self):
        self._run(1, depth=1)

    def test_list_against_redis_compress_depth_2(self):
        self._run(1, depth=2)


if __name__ == "__main__":
    unittest.main()
