"""Functions differential test: gen_function.py's seeded stream of libraries and calls
(FUNCTION LOAD of valid and broken libraries, FCALL / FCALL_RO of random redis.call bodies,
DELETE, LIST, STATS) runs on Ruvio and on redis-server, the connection switching between
RESP2 and RESP3; every reply must be the same bytes (FUNCTION LIST, whose function order is
Redis's hash order, is compared with the functions sorted), at 1 worker and through the
proxy port of a 2-worker Ruvio (a body's keys share a {hash tag}).

Env: RUVIO_DIFF_SEED (printed on every run and on failure), RUVIO_FUNCTION_STEPS (steps per
run, default 2500, about 3,000 commands and 12 s for both runs; 16000 steps, about 20,000
commands, passed at 1 and 2 workers in 70 s, too long for every CI run).
"""

import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gen_function  # noqa: E402
import harness  # noqa: E402
import sidebyside  # noqa: E402
import test_differential as td  # noqa: E402
from resp_raw import Lockstep, parse  # noqa: E402


def normalized_list(raw):
    libs = parse(raw)
    if not isinstance(libs, list):
        return libs
    out = []
    for lib in libs:
        pairs = dict(zip(lib[::2], lib[1::2])) if isinstance(lib[0], bytes) else dict(lib)
        pairs[b"functions"] = sorted(repr(f) for f in pairs[b"functions"])
        out.append(sorted(pairs.items()))
    return out


def run(test, seed, steps, workers):
    gen = gen_function.FunctionGenerator(seed)
    sched = random.Random(seed + 1)
    with sidebyside.pair(workers) as (ref, cand), Lockstep(ref.port, cand.port) as ls:
        for cmd in (["FLUSHALL"], ["FUNCTION", "FLUSH"]):
            test.assertEqual(ls.both(cmd), (b"+OK\r\n", b"+OK\r\n"))
        stats = {"steps": 0, "loads": 0, "fcalls": 0, "errors": 0, "resp3": 0}
        for i in range(steps):
            if sched.random() < 0.1:
                ls.switch_proto()
            for cmd in gen.commands():
                normalize = cmd[0] == "LIST"
                if normalize:
                    cmd = cmd[1:]
                want, got = ls.both(cmd)
                if normalize:
                    want, got = normalized_list(want), normalized_list(got)
                test.assertEqual(
                    got, want,
                    f"function differential mismatch: seed={seed} (replay: RUVIO_DIFF_SEED="
                    f"{seed} RUVIO_FUNCTION_STEPS={steps}) step #{i} RESP{ls.proto} "
                    f"workers={workers}\n{cmd}")
                stats["loads"] += cmd[:2] == ["FUNCTION", "LOAD"]
                stats["fcalls"] += cmd[0].startswith("FCALL")
                stats["errors"] += isinstance(want, bytes) and want.startswith(b"-")
            stats["steps"] += 1
            stats["resp3"] += ls.proto == 3
        # The libraries left, dumped by Redis, restore on Ruvio to the same listing.
        dump = parse(ls.a.call("FUNCTION", "DUMP"))
        test.assertEqual(ls.both(["FUNCTION", "RESTORE", dump, "FLUSH"]),
                         (b"+OK\r\n", b"+OK\r\n"))
        want, got = ls.both(["FUNCTION", "LIST", "WITHCODE"])
        test.assertEqual(sorted(normalized_list(got)), sorted(normalized_list(want)))
        return stats


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class FunctionDifferential(unittest.TestCase):
    def check(self, workers):
        seed = td.diff_seed()
        steps = int(os.environ.get("RUVIO_FUNCTION_STEPS", "2500"))
        stats = run(self, seed, steps, workers)
        print(f"\nfunction differential (workers={workers}): seed={seed} {stats}",
              file=sys.stderr)
        self.assertEqual(stats["steps"], steps)
        self.assertGreater(stats["loads"], 100)
        self.assertGreater(stats["fcalls"], 100)
        self.assertGreater(stats["errors"], 0)

    def test_one_worker(self):
        self.check(1)

    def test_proxy_two_workers(self):
        self.check(2)


if __name__ == "__main__":
    unittest.main()
