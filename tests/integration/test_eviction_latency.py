"""The latency monitor's eviction events, side by side with redis-server 7.0 (issue 14):
evicting one hash of 200,000 fields under a low maxmemory takes well over 1 ms to delete
(eviction-del) and so does the whole pass (eviction-cycle); with latency-monitor-threshold 0
nothing is recorded. On Ruvio also eviction-lazyfree: with lazyfree-lazy-eviction the value
is queued, and when nothing is left to evict the pass frees the queue (Redis waits for its
lazyfree thread there, which makes the timing a race on redis-server: not compared)."""

import unittest

import itest

FIELDS = 200_000


class EvictionLatencyCases:
    def setUp(self):
        super().setUp()
        self.r.config_set("maxmemory", "0")
        self.r.config_set("maxmemory-policy", "allkeys-random")
        self.r.config_set("lazyfree-lazy-eviction", "no")
        self.r.config_set("latency-monitor-threshold", "0")
        self.r.execute_command("LATENCY", "RESET")

    def tearDown(self):
        self.r.config_set("maxmemory", "0")
        self.r.config_set("maxmemory-policy", "noeviction")
        self.r.config_set("maxmemory-eviction-tenacity", "10")
        self.r.config_set("lazyfree-lazy-eviction", "no")
        self.r.config_set("latency-monitor-threshold", "0")
        super().tearDown()

    def big_hash(self, key):
        p = self.r.pipeline(transaction=False)
        for i in range(FIELDS // 1000):
            p.hset(key, mapping={f"f{i}_{j}": "v" for j in range(1000)})
        p.execute()
        self.assertEqual(self.r.hlen(key), FIELDS)

    def squeeze(self):
        """maxmemory at half of what is used now: the next command evicts."""
        used = self.r.info("memory")["used_memory"]
        self.r.config_set("maxmemory", str(used // 2))

    def test_eviction_del_and_cycle(self):
        self.big_hash("big")
        self.r.config_set("latency-monitor-threshold", "1")
        self.squeeze()
        self.assertTrue(self.r.set("x", "1"))
        self.assertEqual(self.r.exists("big"), 0)
        latest = {e[0]: e[1:] for e in self.r.execute_command("LATENCY", "LATEST")}
        # redis-server may log a slow "command" too (its CONFIG SET maxmemory around the
        # squeeze); the eviction events are the point here.
        self.assertEqual(sorted(set(latest) - {"command"}), ["eviction-cycle", "eviction-del"])
        _, dele, _ = latest["eviction-del"]
        _, cycle, _ = latest["eviction-cycle"]
        self.assertGreaterEqual(dele, 1)
        self.assertGreaterEqual(cycle, dele)
        self.assertEqual(self.r.execute_command("LATENCY", "HISTORY", "eviction-del"),
                         [[latest["eviction-del"][0], dele]])

    def test_threshold_zero_records_nothing(self):
        self.big_hash("big")
        self.squeeze()
        self.assertTrue(self.r.set("x", "1"))
        self.assertEqual(self.r.exists("big"), 0)
        self.assertEqual(self.raw_call("LATENCY", "LATEST"), b"*0\r\n")


class RedisReference(EvictionLatencyCases, itest.RedisCase):
    pass


class Ruvio(EvictionLatencyCases, itest.RuvioCase):
    def test_eviction_lazyfree(self):
        # SET y evicts "big" into the lazy free queue (counted as freed, the memory still
        # used); SET z, in the same packet so no timer frees the queue between them, finds
        # nothing evictable but the queue and frees it within the pass (tenacity 100: no
        # time limit): eviction-lazyfree, and z is stored.
        self.big_hash("big")
        self.r.config_set("lazyfree-lazy-eviction", "yes")
        self.r.config_set("maxmemory-eviction-tenacity", "100")
        self.r.config_set("latency-monitor-threshold", "1")
        self.squeeze()
        c = self.raw()
        c.send(itest.encode("SET", "y", "1") + itest.encode("SET", "z", "1"))
        self.assertEqual((c.reply(), c.reply()), (b"+OK\r\n", b"+OK\r\n"))
        self.assertEqual(self.r.exists("big"), 0)
        self.assertEqual(self.r.get("z"), "1")
        latest = {e[0]: e[1:] for e in self.r.execute_command("LATENCY", "LATEST")}
        self.assertIn("eviction-lazyfree", latest, latest)
        self.assertIn("eviction-cycle", latest, latest)
        self.assertGreaterEqual(latest["eviction-lazyfree"][1], 1)
        self.assertEqual(self.r.info("memory")["lazyfree_pending_objects"], 0)


if __name__ == "__main__":
    unittest.main()
