"""DEBUG RELOAD goes through the snapshot file, as Redis 7.0's goes through dump.rdb: the
worker's snapshot is written (DIR/worker-<i>/snapshot, rewritten: a new inode), the keys and
function libraries are dropped, and the file is loaded back. Every type (random keys of every
encoding, stream consumer groups with pending entries, hash fields with TTLs, keys with TTLs,
function libraries) comes back: DEBUG DIGEST, XINFO STREAM FULL, HPTTL, FUNCTION LIST and PTTL
are what they were. NOSAVE loads the file as it is (a later write is gone), NOFLUSH MERGE adds
the file to what is in memory, a bad option gets Redis's text and a restart after a reload
finds the reloaded data. Through a 2-worker proxy port the command reaches both workers (both
files rewritten). The loaded hashes, sets and zsets take the encodings the thresholds of the
moment choose, as redis-server's loader converts them. Under --durability memory the file is a separate one a restart never reads;
NOSAVE without it answers Redis's error, as redis-server without dump.rdb."""

import os
import random
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))
sys.path.insert(0, HERE)
import dump_data as dd  # noqa: E402
import sidebyside  # noqa: E402
from durability_case import CrashCase  # noqa: E402
from resp_raw import RawConn  # noqa: E402

LIB = "#!lua name=rl\nredis.register_function('rl_echo', function(keys, args) return args[1] end)"


def fill(r, rng):
    dd.populate(r, rng, 150)
    r.xadd("st", {"f": "v"}, id="1-1")
    r.xadd("st", {"g": "w"}, id="2-1")
    r.xgroup_create("st", "grp", id="0")
    r.xreadgroup("grp", "alice", {"st": ">"}, count=1)
    r.hset("hf", mapping={"a": "1", "b": "2", "c": "3"})
    r.execute_command("HPEXPIRE", "hf", "500000", "FIELDS", "2", "a", "b")
    r.set("ttl", "x", px=400000)
    r.execute_command("FUNCTION", "LOAD", LIB)


def state(r):
    return (r.execute_command("DEBUG", "DIGEST"), r.execute_command("XINFO", "STREAM", "st", "FULL"),
            r.execute_command("HPTTL", "hf", "FIELDS", "3", "a", "b", "c"),
            r.execute_command("FUNCTION", "LIST", "WITHCODE"), r.dbsize())


def enc(r, key):
    # Ruvio's small sets of strings take 7.2's listpack encoding where 7.0 has a hashtable (a
    # choice of the set type, types/set/set.hpp, not of the reload): compared as hashtable.
    e = r.object("encoding", key)
    return b"hashtable" if e == b"listpack" and r.type(key) == b"set" else e


class DebugReload(CrashCase, unittest.TestCase):
    prefix = "ruvio-reload-"
    args = dd.ruvio_args()

    def snapshot(self, w=0):
        path = os.path.join(self.dir, f"worker-{w}", "snapshot")
        return os.stat(path) if os.path.exists(path) else None

    def check_reload(self, r, workers):
        before = [self.snapshot(w) for w in range(workers)]
        was = state(r)
        self.assertEqual(r.execute_command("DEBUG", "RELOAD"), b"OK")
        for w in range(workers):
            after = self.snapshot(w)
            self.assertIsNotNone(after, w)
            if before[w] is not None:
                self.assertNotEqual(after.st_ino, before[w].st_ino, w)  # renamed over: rewritten
        now = state(r)
        self.assertEqual(now[0], was[0])  # the digest
        self.assertEqual(now[1], was[1])  # the stream's groups, consumers and PEL
        self.assertEqual([t > 490000 for t in now[2][:2]] + now[2][2:], [True, True, -1])
        self.assertEqual(now[3], was[3])
        self.assertEqual(now[4], was[4])
        self.assertGreater(r.pttl("ttl"), 390000)
        self.assertEqual(r.fcall("rl_echo", 0, "hi"), b"hi")
        return was

    def test_reload_through_the_file(self):
        srv = self.start("everysec")
        r = srv.client()
        fill(r, random.Random(7))
        self.assertIsNone(self.snapshot())
        was = self.check_reload(r, 1)
        self.check_reload(r, 1)  # a second round over the file the first one wrote
        # NOSAVE: the file as it is; a write made since is gone.
        r.set("later", "1")
        self.assertEqual(r.execute_command("DEBUG", "RELOAD", "NOSAVE"), b"OK")
        self.assertIsNone(r.get("later"))
        self.assertEqual(r.execute_command("DEBUG", "DIGEST"), was[0])
        # NOFLUSH MERGE: the file over what is in memory.
        r.set("later", "2")
        r.delete("ttl")
        self.assertEqual(r.execute_command("DEBUG", "RELOAD", "nosave", "noflush", "merge"),
                         b"OK")
        self.assertEqual(r.get("later"), b"2")
        self.assertEqual(r.get("ttl"), b"x")
        digest = r.execute_command("DEBUG", "DIGEST")
        # A restart finds what the reload left (its snapshot and the WAL after it).
        r.close()
        srv.stop()
        srv = self.start("everysec")
        r = srv.client()
        self.assertEqual(r.execute_command("DEBUG", "DIGEST"), digest)
        self.assertEqual(r.fcall("rl_echo", 0, "x"), b"x")
        r.close()

    def test_reload_reaches_every_worker(self):
        srv = self.start("everysec", workers=2)
        r = srv.client()
        fill(r, random.Random(11))
        self.assertGreater(len(r.keys("k:*")), 100)
        self.check_reload(r, 2)
        r.close()

    def test_errors_as_redis(self):
        with sidebyside.pair(1, dd.redis_args(), dd.ruvio_args()) as (redis, ruvio):
            a, b = RawConn(ruvio.port), RawConn(redis.port)
            for args in (["DEBUG", "RELOAD", "NOSAVE"], ["DEBUG", "RELOAD", "bogus"],
                         ["DEBUG", "RELOAD", "MERGE", "x"], ["SET", "k", "v"],
                         ["DEBUG", "RELOAD"], ["GET", "k"], ["DEBUG", "RELOAD", "NoSave"],
                         ["GET", "k"], ["DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE"],
                         ["DBSIZE"]):
                self.assertEqual(a.call(*args), b.call(*args), args)
            a.close()
            b.close()
            # Under --durability memory the round trip has its own file, never the snapshot.
            wdir = os.path.join(ruvio.tmp.name, "data", "worker-0")
            self.assertTrue(os.path.exists(os.path.join(wdir, "snapshot.debug-reload")))
            self.assertFalse(os.path.exists(os.path.join(wdir, "snapshot")))

    def test_encodings_follow_the_thresholds_as_redis(self):
        # Redis's loader converts a hash, set or zset both ways to the current thresholds.
        with sidebyside.pair(1, dd.redis_args(), dd.ruvio_args()) as (redis, ruvio):
            a, b = redis.client(), ruvio.client()
            keys = dd.populate(a, random.Random(5), 200)
            dd.populate(b, random.Random(5), 200)
            for limits in (("1000", "1000", "2000"), ("4", "4", "4"), ("128", "128", "512")):
                for c in (a, b):
                    c.config_set("hash-max-listpack-entries", limits[0])
                    c.config_set("zset-max-listpack-entries", limits[1])
                    c.config_set("set-max-intset-entries", limits[2])
                    self.assertTrue(c.execute_command("DEBUG", "RELOAD"))
                self.assertEqual([enc(b, k) for k in keys], [enc(a, k) for k in keys], limits)
                self.assertEqual(b.execute_command("DEBUG", "DIGEST"),
                                 a.execute_command("DEBUG", "DIGEST"), limits)
            a.close()
            b.close()

    def test_expired_keys_dropped_by_the_load(self):
        # As Redis's loader: a key already expired is not loaded (no lazy expiry happened).
        srv = self.start("everysec")
        r = srv.client()
        r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
        r.set("gone", "1", px=1)
        r.set("kept", "1")
        time.sleep(0.05)
        self.assertEqual(r.dbsize(), 2)
        self.assertEqual(r.execute_command("DEBUG", "RELOAD"), b"OK")
        self.assertEqual(r.dbsize(), 1)
        r.close()


if __name__ == "__main__":
    unittest.main()
