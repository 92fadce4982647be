"""Active expiry of hash fields through the per-db index of field expiry times (hash_ttl_
commands.cpp, types/hash/field_expiry_index.hpp), Ruvio only (redis-server 7.0 has no field
TTLs): 100,000 fields with a short TTL in one hash, and 200 more hashes, leave memory without
any client touching them, within a bound; hashes that arrive by RENAME, COPY, MOVE and SWAPDB
are expired as well. (Snapshot-loaded fields and the WAL's HDEL: test_hash.py's
HashDurability.)"""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import itest  # noqa: E402


def load_fields(r, key, n, ttl_ms, prefix="f", hset=True):
    for start in range(0, n, 5000):
        names = [f"{prefix}{i}" for i in range(start, min(n, start + 5000))]
        if hset:
            r.hset(key, mapping={f: "v" for f in names})
        got = r.execute_command("HPEXPIRE", key, ttl_ms, "FIELDS", len(names), *names)
        assert got == [1] * len(names), got[:5]


class FieldExpiry(itest.RuvioCase):
    def used(self, r):
        return r.info("memory")["used_memory"]

    def test_100k_fields_leave_memory_untouched(self):
        r = self.server.client()
        self.addCleanup(r.close)
        r.set("keep", "1")
        time.sleep(0.3)
        base = self.used(r)
        # Loaded with a long TTL (a slow load must not see fields go), then made short.
        load_fields(r, "big", 100_000, 600_000)
        for k in range(200):
            load_fields(r, f"small:{k}", 10, 600_000)
        loaded = self.used(r)
        self.assertGreater(loaded - base, 2_000_000)
        t0 = time.monotonic()
        load_fields(r, "big", 100_000, 100, hset=False)
        for k in range(200):
            load_fields(r, f"small:{k}", 10, 100 + k, hset=False)
        # DBSIZE and INFO touch no key: only the active expiry can remove them.
        self.assertTrue(itest.wait_for(lambda: r.dbsize() == 1, timeout=8.0), r.dbsize())
        self.assertTrue(itest.wait_for(
            lambda: r.info("memory").get("lazyfree_pending_objects", 0) == 0 and
            self.used(r) - base < 256 * 1024, timeout=5.0), (self.used(r) - base))
        self.assertLess(time.monotonic() - t0, 8.0)
        self.assertEqual(r.get("keep"), b"1")

    def test_moved_renamed_copied_swapped_hashes_expire(self):
        r = self.server.client()
        self.addCleanup(r.close)
        # Past the one-time indexing of what the server started with (a snapshot): from
        # here only the index's own bookkeeping can find the moved keys.
        r.hset("seed", "f", "1")
        r.execute_command("HPEXPIRE", "seed", 50, "FIELDS", 1, "f")
        self.assertTrue(itest.wait_for(lambda: r.dbsize() == 0, timeout=5.0))
        for k in ("a", "b", "c", "d"):
            r.hset(k, mapping={"x": "1", "y": "2"})
            r.execute_command("HPEXPIRE", k, 300, "FIELDS", 2, "x", "y")
        r.rename("a", "a2")
        r.copy("b", "b2")
        r.move("c", 3)
        r.swapdb(0, 5)
        r5 = self.server.client(db=5)
        r3 = self.server.client(db=3)
        self.addCleanup(r5.close)
        self.addCleanup(r3.close)
        self.assertEqual(r5.dbsize(), 4)  # a2 b b2 d
        self.assertEqual(r3.dbsize(), 1)  # c
        # Nobody touches them: the index (noted on RENAME/COPY/MOVE, swapped by SWAPDB) does.
        self.assertTrue(itest.wait_for(lambda: r5.dbsize() == 0 and r3.dbsize() == 0,
                                       timeout=5.0), (r5.dbsize(), r3.dbsize()))
        self.assertEqual(r.dbsize(), 0)


if __name__ == "__main__":
    unittest.main()
