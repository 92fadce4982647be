"""Sets on a real server: recovery after SIGKILL from the WAL (SPOP logged as the SREM of what
it popped) and from a snapshot, in every encoding; CONFIG SET of the set thresholds; a no-op
SADD/SREM does not invalidate a WATCH (as Redis); memory comes back after DEL."""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402
from durability_case import CrashCase  # noqa: E402
from itest import wait_for  # noqa: E402


def fill(r):
    """Sets of every encoding, changed by every writing set command."""
    r.sadd("ints", *range(10))                             # intset
    r.sadd("mixed", *range(5), "a", "b")                   # intset -> listpack
    r.sadd("big", *range(600))                             # intset -> hashtable
    r.sadd("strs", *[f"m{i}" for i in range(300)])         # hashtable from the start
    r.sadd("long", "x" * 65)                               # hashtable: value > 64 bytes
    r.srem("big", *range(100))
    popped = r.spop("big", 50)
    assert len(popped) == 50
    r.spop("strs")
    r.spop("ints", 8)                                      # Redis's "few remain" path
    r.smove("mixed", "moved", "a")
    r.sinterstore("inter", "big", "ints")
    r.sunionstore("union", "mixed", "moved", "long")
    r.sdiffstore("diff", "strs", "moved")
    r.sadd("gone", "1")
    r.spop("gone", 5)                                      # all: logged as DEL


def snapshot_of(r):
    out = {}
    for k in sorted(r.keys("*")):
        out[k] = (r.type(k), r.object("encoding", k), sorted(r.smembers(k)))
    return out


class SetDurability(CrashCase, unittest.TestCase):
    prefix = "ruvio-set-"

    def test_sigkill_replays_set_effects_from_the_wal(self):
        srv = self.start("always")
        r = srv.client(decode_responses=True)
        fill(r)
        before = snapshot_of(r)
        self.assertEqual(before["ints"][1], "intset")
        self.assertEqual(before["mixed"][1], "listpack")
        self.assertEqual(before["big"][1], "hashtable")
        self.assertNotIn("gone", before)
        r.close()
        self.crash(srv)
        srv = self.start("always")
        r = srv.client(decode_responses=True)
        self.assertEqual(snapshot_of(r), before)
        r.close()

    def test_sigkill_after_snapshot_restores_every_encoding(self):
        srv = self.start("everysec")
        r = srv.client(decode_responses=True)
        fill(r)
        self.assertTrue(r.save())
        r.sadd("after", "x", "1")
        r.spop("big", 3)
        before = snapshot_of(r)
        time.sleep(1.5)  # everysec: let the WAL reach the disk
        r.close()
        self.crash(srv)
        srv = self.start("everysec")
        r = srv.client(decode_responses=True)
        self.assertEqual(snapshot_of(r), before)
        r.close()


class SetStartConfig(unittest.TestCase):
    def test_thresholds_from_the_command_line(self):
        with harness.Server(kind="ruvio", args=["--workers", "1", "--set-max-listpack-entries",
                                                "2", "--set-max-intset-entries", "3",
                                                "--set-max-listpack-value", "5"]) as srv:
            r = srv.client(decode_responses=True)
            self.assertEqual(r.config_get("set-max-*"), {
                "set-max-intset-entries": "3", "set-max-listpack-entries": "2",
                "set-max-listpack-value": "5"})
            r.sadd("a", "x", "y")
            self.assertEqual(r.object("encoding", "a"), "listpack")
            r.sadd("a", "z")
            self.assertEqual(r.object("encoding", "a"), "hashtable")
            r.sadd("i", 1, 2, 3)
            self.assertEqual(r.object("encoding", "i"), "intset")
            r.sadd("i", 4)
            self.assertEqual(r.object("encoding", "i"), "hashtable")
            r.sadd("v", "123456")
            self.assertEqual(r.object("encoding", "v"), "intset")
            r.sadd("w", "abcdef")
            self.assertEqual(r.object("encoding", "w"), "hashtable")
            r.close()


class SetServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server(kind="ruvio", args=["--workers", "1"])
        cls.srv.__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.srv.__exit__(None, None, None)

    def setUp(self):
        self.r = self.srv.client(decode_responses=True)
        self.r.flushall()

    def tearDown(self):
        self.r.config_set("set-max-intset-entries", 512)
        self.r.config_set("set-max-listpack-entries", 128)
        self.r.config_set("set-max-listpack-value", 64)
        self.r.close()

    def test_config_thresholds(self):
        r = self.r
        self.assertEqual(r.config_get("set-max-*"), {
            "set-max-intset-entries": "512", "set-max-listpack-entries": "128",
            "set-max-listpack-value": "64"})
        r.config_set("set-max-listpack-entries", 3)
        r.sadd("a", "x", "y", "z")
        self.assertEqual(r.object("encoding", "a"), "listpack")
        r.sadd("a", "w")
        self.assertEqual(r.object("encoding", "a"), "hashtable")
        r.srem("a", "w", "x")
        self.assertEqual(r.object("encoding", "a"), "hashtable")  # never back
        r.config_set("set-max-intset-entries", 2)
        r.sadd("i", 1, 2)
        self.assertEqual(r.object("encoding", "i"), "intset")
        r.sadd("i", 3)
        self.assertEqual(r.object("encoding", "i"), "hashtable")
        r.config_set("set-max-listpack-value", 2)
        r.config_set("set-max-listpack-entries", 128)
        r.sadd("v", "ab")
        self.assertEqual(r.object("encoding", "v"), "listpack")
        r.sadd("v", "abc")
        self.assertEqual(r.object("encoding", "v"), "hashtable")
        with self.assertRaises(Exception) as e:
            r.config_set("set-max-listpack-value", "x")
        self.assertIn("argument couldn't be parsed into an integer", str(e.exception))

    def test_noop_write_keeps_a_watch(self):
        r = self.r
        r.sadd("w", "a")
        with r.pipeline() as p:
            p.watch("w")
            self.r.sadd("w", "a")   # already a member: no change
            self.r.srem("w", "zz")  # not a member: no change
            p.multi()
            p.scard("w")
            self.assertEqual(p.execute(), [1])

    def test_memory_usage_and_used_memory(self):
        r = self.r
        base = r.info("memory")["used_memory"]
        r.sadd("m", *[f"member:{i}" for i in range(10000)])
        usage = r.memory_usage("m")
        self.assertGreater(usage, 10000 * 16)
        self.assertGreaterEqual(r.info("memory")["used_memory"] - base, usage)
        r.delete("m")
        self.assertTrue(wait_for(lambda: r.info("memory")["used_memory"] <= base + 4096))


if __name__ == "__main__":
    unittest.main()
