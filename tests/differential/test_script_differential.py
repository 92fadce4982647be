"""Scripting differential test: gen_script.py's seeded corpus of Lua scripts (random
redis.call / redis.pcall sequences over all types, with pcall and conversions) runs on
Ruvio and on redis-server, each script by EVAL, again by EVALSHA, and once more as a
function (FUNCTION LOAD REPLACE of it as a library, then FCALL), the connection
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
import sidebyside  # noqa: E402
import test_differential as td  # noqa: E402
from resp_raw import Lockstep  # noqa: E402


_seed = td.diff_seed


def run(test, seed, count, workers):
    gen = gen_script.ScriptGenerator(seed)
    sched = random.Random(seed + 1)
    with sidebyside.pair(workers) as (ref, cand), Lockstep(ref.port, cand.port) as ls:
        for cmd in (["FLUSHALL"], ["FUNCTION", "FLUSH"]):
            test.assertEqual(ls.both(cmd), (b"+OK\r\n", b"+OK\r\n"))
        loaded = b"$%d\r\n%s\r\n" % (len(gen_script.LIBRARY), gen_script.LIBRARY.encode())
        stats = {"scripts": 0, "resp3": 0, "errors": 0, "fcalls": 0}
        for i in range(count):
            if sched.random() < 0.1:
                ls.switch_proto()
            script, nk, keys, argv = gen.next()
            sha = hashlib.sha1(script.encode()).hexdigest()
            for cmd in (["EVAL", script, str(nk), *keys, *argv],
                        ["EVALSHA", sha, str(nk), *keys, *argv],
                        ["FUNCTION", "LOAD", "REPLACE", gen_script.as_library(script)],
                        ["FCALL", gen_script.FUNCTION, str(nk), *keys, *argv]):
                want, got = ls.both(cmd)
                test.assertEqual(
                    got, want,
                    f"script differential mismatch: seed={seed} (replay: RUVIO_DIFF_SEED="
                    f"{seed} RUVIO_SCRIPT_COUNT={count}) script #{i} RESP{ls.proto} "
                    f"workers={workers} {cmd[0]}\n{script}\nkeys={keys} argv={argv}")
                stats["errors"] += want.startswith(b"-")
                stats["fcalls"] += cmd[0] == "FCALL"
                if cmd[0] == "FUNCTION":  # every generated body compiles as a function
                    test.assertEqual(want, loaded, script)
            stats["scripts"] += 1
            stats["resp3"] += ls.proto == 3
        return stats


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class ScriptDifferential(unittest.TestCase):
    def check(self, workers):
        seed = _seed()
        count = int(os.environ.get("RUVIO_SCRIPT_COUNT", "300"))
        stats = run(self, seed, count, workers)
        print(f"\nscript differential (workers={workers}): seed={seed} {stats}",
              file=sys.stderr)
        self.assertEqual(stats["scripts"], count)
        self.assertEqual(stats["fcalls"], count)
        self.assertGreater(stats["resp3"], 0)
        self.assertGreater(stats["errors"], 0)

    def test_against_redis(self):
        self.check(1)

    def test_against_redis_2_workers(self):
        self.check(2)


if __name__ == "__main__":
    unittest.main()
