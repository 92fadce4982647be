"""Scripting differential test: gen_script.py's seeded corpus of Lua scripts (random
redis.call / redis.pcall sequences over all types, with pcall and conversions) runs on
Ruvio and on redis-server, each script by EVAL and again by EVALSHA, the connection
switching between RESP2 and RESP3; every reply must be the same bytes, at 1 worker and
through the proxy port of a 2-worker Ruvio (each script's keys share a {hash tag}).

Env: RUVIO_DIFF_SEED (printed on every run and on failure), RUVIO_SCRIPT_COUNT (scripts
per run, default 300).
"""

import hashlib
import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gen_script  # noqa: E402
import harness  # noqa: E402
import test_differential as td  # noqa: E402
from resp_raw import RawConn, encode  # noqa: E402


_seed = td.diff_seed


def run(test, seed, count, workers):
    gen = gen_script.ScriptGenerator(seed)
    sched = random.Random(seed + 1)
    with harness.Server(kind="redis") as ref, \
            harness.Server(kind="ruvio", args=["--workers", str(workers)]) as cand:
        if workers > 1:
            harness.wait_mesh_up(cand.port, workers)
        a, b = RawConn(ref.port), RawConn(cand.port)
        try:
            for c in (a, b):
                c.send(encode(["FLUSHALL"]))
                test.assertEqual(c.read_reply(), b"+OK\r\n")
            proto, stats = 2, {"scripts": 0, "resp3": 0, "errors": 0}
            for i in range(count):
                if sched.random() < 0.1:
                    proto = 5 - proto
                    for c in (a, b):
                        c.send(encode(["HELLO", str(proto)]))
                        c.read_reply()
                script, nk, keys, argv = gen.next()
                sha = hashlib.sha1(script.encode()).hexdigest()
                for cmd in (["EVAL", script, str(nk), *keys, *argv],
                            ["EVALSHA", sha, str(nk), *keys, *argv]):
                    a.send(encode(cmd))
                    b.send(encode(cmd))
                    want, got = a.read_reply(), b.read_reply()
                    test.assertEqual(
                        got, want,
                        f"script differential mismatch: seed={seed} (replay: RUVIO_DIFF_SEED="
                        f"{seed} RUVIO_SCRIPT_COUNT={count}) script #{i} RESP{proto} "
                        f"workers={workers} {cmd[0]}\n{script}\nkeys={keys} argv={argv}")
                    stats["errors"] += want.startswith(b"-")
                stats["scripts"] += 1
                stats["resp3"] += proto == 3
            return stats
        finally:
            a.close()
            b.close()


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class ScriptDifferential(unittest.TestCase):
    def check(self, workers):
        seed = _seed()
        count = int(os.environ.get("RUVIO_SCRIPT_COUNT", "300"))
        stats = run(self, seed, count, workers)
        print(f"\nscript differential (workers={workers}): seed={seed} {stats}",
              file=sys.stderr)
        self.assertEqual(stats["scripts"], count)
        self.assertGreater(stats["resp3"], 0)
        self.assertGreater(stats["errors"], 0)

    def test_against_redis(self):
        self.check(1)

    def test_against_redis_2_workers(self):
        self.check(2)


if __name__ == "__main__":
    unittest.main()
