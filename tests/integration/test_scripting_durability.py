"""Scripts survive SIGKILL as their effects: every write a script ran is in the WAL (SPOP as
the SREM of what it popped, so replay does not depend on the script being deterministic),
and one script's writes are one all-or-nothing record — a WAL whose last script record is
damaged comes back with none of that script's writes and all of the earlier ones."""

import glob
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402
from durability_case import CrashCase  # noqa: E402


WORKLOAD = """
redis.call('set', KEYS[1], ARGV[1])
redis.call('incrby', KEYS[2], 5)
redis.call('rpush', KEYS[3], 'a', 'b', 'c')
redis.call('lpop', KEYS[3])
redis.call('hset', KEYS[4], 'f', ARGV[1], 'g', 'x')
redis.call('zadd', KEYS[5], 1.5, 'm', 2, 'n')
local popped = redis.call('spop', KEYS[6])
redis.call('expire', KEYS[1], 1000)
return popped
"""


def state(r):
    return {
        "s": r.get("{d}s"), "n": r.get("{d}n"), "l": r.lrange("{d}l", 0, -1),
        "h": r.hgetall("{d}h"), "z": r.zrange("{d}z", 0, -1, withscores=True),
        "set": sorted(r.smembers("{d}set")), "ttl": r.ttl("{d}s") > 900,
    }


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class ScriptDurability(CrashCase, unittest.TestCase):
    prefix = "ruvio-sdur-"

    def test_effects_replayed_after_sigkill(self):
        srv = self.start("always")
        r = srv.client(decode_responses=True)
        r.sadd("{d}set", *range(20))
        keys = ["{d}s", "{d}n", "{d}l", "{d}h", "{d}z", "{d}set"]
        popped = [r.eval(WORKLOAD, 6, *keys, "v%d" % i) for i in range(3)]
        sha = r.script_load(WORKLOAD)
        popped.append(r.evalsha(sha, 6, *keys, "last"))
        # A script that fails halfway keeps what it wrote before the error, as in Redis.
        with self.assertRaises(Exception):
            r.eval("redis.call('set', KEYS[1], 'before') return redis.call('incr', KEYS[2])",
                   2, "{d}half", "{d}l")
        self.assertEqual(r.get("{d}half"), "before")
        want = state(r)
        self.assertEqual(want["n"], "20")
        self.assertEqual(len(want["set"]), 16)
        self.assertNotIn(popped[0], want["set"])
        r.close()
        self.crash(srv)
        srv = self.start("everysec")
        r = srv.client(decode_responses=True)
        self.assertEqual(state(r), want)
        self.assertEqual(r.get("{d}half"), "before")
        r.close()

    def test_one_script_is_one_record(self):
        srv = self.start("always")
        r = srv.client(decode_responses=True)
        r.eval("redis.call('set', KEYS[1], 'one') redis.call('set', KEYS[2], 'two')", 2,
               "{d}a", "{d}b")
        marker = "MARKER-" + "q" * 40
        r.eval("redis.call('set', KEYS[1], ARGV[1]) redis.call('set', KEYS[2], 'x') "
               "redis.call('set', KEYS[3], ARGV[1])", 3, "{d}c", "{d}d", "{d}e", marker)
        r.close()
        self.crash(srv)
        # Damage the last record: one byte of the marker's last copy.
        wal = sorted(glob.glob(os.path.join(self.dir, "worker-0", "wal-*.log")))[-1]
        with open(wal, "r+b") as f:
            data = f.read()
            at = data.rfind(marker.encode())
            self.assertGreater(at, 0)
            f.seek(at + 3)
            f.write(b"#")
        srv = self.start("everysec")
        r = srv.client(decode_responses=True)
        self.assertEqual(r.mget("{d}a", "{d}b"), ["one", "two"])
        self.assertEqual(r.exists("{d}c", "{d}d", "{d}e"), 0)
        r.close()

    def test_set_repl_without_aof_is_not_journaled(self):
        # Redis leaves the writes a script makes after redis.set_repl() without REPL_AOF out
        # of its AOF: they are gone after a restart (checked with redis-server and
        # appendonly yes); the WAL is Ruvio's AOF.
        srv = self.start("always")
        r = srv.client(decode_responses=True)
        marker = "UNLOGGED-" + "u" * 20
        r.eval("redis.call('set', KEYS[1], 'before') "
               "redis.set_repl(redis.REPL_NONE) redis.call('set', KEYS[2], ARGV[1]) "
               "redis.set_repl(redis.REPL_REPLICA) redis.call('set', KEYS[3], ARGV[1]) "
               "redis.set_repl(redis.REPL_ALL) redis.call('set', KEYS[4], 'after')",
               4, "{d}before", "{d}none", "{d}replica", "{d}after", marker)
        self.assertEqual(r.mget("{d}before", "{d}none", "{d}replica", "{d}after"),
                         ["before", marker, marker, "after"])
        # The next script starts as REPL_ALL again.
        r.eval("redis.call('set', KEYS[1], 'next')", 1, "{d}next")
        r.close()
        self.crash(srv)
        wal = b"".join(open(p, "rb").read()
                       for p in glob.glob(os.path.join(self.dir, "worker-0", "wal-*.log")))
        self.assertNotIn(marker.encode(), wal)
        srv = self.start("everysec")
        r = srv.client(decode_responses=True)
        self.assertEqual(r.mget("{d}before", "{d}none", "{d}replica", "{d}after", "{d}next"),
                         ["before", None, None, "after", "next"])
        r.close()


if __name__ == "__main__":
    unittest.main()
