"""INFO tells the server's state (issue 25 §4): fields that used to be fixed text are checked
after the action that moves them, side by side with redis-server 7.0.15 where Redis has the
same figure, at 1 worker and through the 2-worker proxy port."""

import tempfile
import threading
import time
import unittest

import harness
import itest


def info(r, section):
    return r.info(section)


def populate(r, prefix, n, size):
    """n keys of `size` bytes, in pipelined MSETs (DEBUG POPULATE needs the debug command)."""
    value = "v" * size
    pipe = r.pipeline(transaction=False)
    for start in range(0, n, 1000):
        pipe.mset({f"{prefix}:{i}": value for i in range(start, min(n, start + 1000))})
    pipe.execute()


class Common:
    """The cases both servers answer alike; subclasses start one server each."""

    def client(self):
        r = self.srv.client()
        self.addCleanup(r.close)
        return r

    def test_pubsub_counts_follow_subscriptions(self):
        sub = self.client().pubsub()
        self.addCleanup(sub.close)
        sub.subscribe("news", "sport")
        sub.psubscribe("n*")
        r = self.client()
        self.assertTrue(itest.wait_for(
            lambda: info(r, "stats")["pubsub_channels"] == 2, timeout=5.0))
        st = info(r, "stats")
        self.assertEqual((st["pubsub_channels"], st["pubsub_patterns"],
                          st["pubsubshard_channels"]), (2, 1, 0))
        sub.unsubscribe("sport")
        self.assertTrue(itest.wait_for(
            lambda: info(r, "stats")["pubsub_channels"] == 1, timeout=5.0))
        sub.punsubscribe()
        self.assertTrue(itest.wait_for(
            lambda: info(r, "stats")["pubsub_patterns"] == 0, timeout=5.0))

    def test_clients_in_timeout_table_counts_blocked_with_a_deadline(self):
        blockers = []
        for timeout in ("5", "0"):  # one with a deadline, one for ever
            c = self.client()
            t = threading.Thread(target=lambda c=c, t=timeout: c.blpop("nothing:here", t))
            t.start()
            blockers.append(t)
        r = self.client()
        self.assertTrue(itest.wait_for(
            lambda: info(r, "clients")["blocked_clients"] == 2, timeout=5.0))
        self.assertEqual(info(r, "clients")["clients_in_timeout_table"], 1)
        r.rpush("nothing:here", "a", "b")
        for t in blockers:
            t.join(10)
        self.assertEqual(info(r, "clients")["clients_in_timeout_table"], 0)

    def test_input_and_output_rates_follow_traffic(self):
        r = self.client()
        value = "x" * 50000
        deadline = time.monotonic() + 3.0
        seen_in = seen_out = 0.0
        while time.monotonic() < deadline and (seen_in == 0 or seen_out == 0):
            for _ in range(20):
                r.set("rate", value)
                r.get("rate")
            st = info(r, "stats")
            seen_in = max(seen_in, float(st["instantaneous_input_kbps"]))
            seen_out = max(seen_out, float(st["instantaneous_output_kbps"]))
            time.sleep(0.05)
        self.assertGreater(seen_in, 0.0)
        self.assertGreater(seen_out, 0.0)

    def test_bgsave_counts_its_fork(self):
        r = self.client()
        self.assertEqual(info(r, "stats")["total_forks"], 0)
        populate(r, "cow", 20000, 64)
        r.bgsave()
        self.assertTrue(itest.wait_for(
            lambda: info(r, "persistence")["rdb_bgsave_in_progress"] == 0, timeout=20.0))
        st = info(r, "stats")
        self.assertGreaterEqual(st["total_forks"], 1)
        self.assertGreater(st["latest_fork_usec"], 0)
        # The child's pages of its own (its writes, the worker's copied ones): Redis's
        # rdb_last_cow_size from the child's Private_Dirty, never 0 for a child that ran.
        self.assertTrue(itest.wait_for(
            lambda: info(r, "persistence")["rdb_last_cow_size"] > 0, timeout=5.0))


    def memory_stats(self, r):
        flat = r.execute_command("MEMORY", "STATS")
        return list(zip(flat[::2], flat[1::2]))

    def test_memory_stats_fields_in_redis_order(self):
        r = self.client()
        populate(r, "ms", 2000, 20)
        r.set("with:ttl", "v", ex=100)
        names = [k for k, _ in self.memory_stats(r)]
        db0 = dict(self.memory_stats(r))[b"db.0"]
        # Redis 7.0.15's fields, in its order (a db.N map per database that has keys).
        self.assertEqual(names, [
            b"peak.allocated", b"total.allocated", b"startup.allocated",
            b"replication.backlog", b"clients.slaves", b"clients.normal", b"cluster.links",
            b"aof.buffer", b"lua.caches", b"functions.caches", b"db.0", b"overhead.total",
            b"keys.count", b"keys.bytes-per-key", b"dataset.bytes", b"dataset.percentage",
            b"peak.percentage", b"allocator.allocated", b"allocator.active",
            b"allocator.resident", b"allocator-fragmentation.ratio",
            b"allocator-fragmentation.bytes", b"allocator-rss.ratio", b"allocator-rss.bytes",
            b"rss-overhead.ratio", b"rss-overhead.bytes", b"fragmentation",
            b"fragmentation.bytes"])
        self.assertEqual(db0[::2], [b"overhead.hashtable.main", b"overhead.hashtable.expires",
                                    b"overhead.hashtable.slot-to-keys"])
        st = dict(self.memory_stats(r))
        # Through the proxy port MEMORY STATS describes the worker the client is on (not
        # merged over the workers: a limit the note states), so its count is that worker's.
        keys = st[b"keys.count"]
        if self.proxy:
            self.assertLess(keys, 2001)
        else:
            self.assertEqual(keys, 2001)
        self.assertGreater(db0[1], 0)  # the main table's arrays hold the keys
        self.assertEqual(st[b"keys.bytes-per-key"],
                         (st[b"total.allocated"] - st[b"startup.allocated"]) // keys)
        self.assertEqual(st[b"dataset.bytes"], st[b"total.allocated"] - st[b"overhead.total"])
        self.assertEqual(st[b"allocator-fragmentation.bytes"],
                         st[b"allocator.active"] - st[b"allocator.allocated"])
        self.assertGreater(float(st[b"fragmentation"]), 0.0)


    def test_memory_doctor_on_an_empty_instance(self):
        # Byte for byte Redis's verbatim reply, in RESP2 and RESP3 (its text ends in "\n").
        raw = itest.Raw(self.srv.port)
        self.addCleanup(raw.close)
        text = (b"Hi Sam, this instance is empty or is using very little memory, my issues "
                b"detector can't be used in these conditions. Please, leave for your mission on "
                b"Earth and fill it with some data. The new Sam and I will be back to our "
                b"programming as soon as I finished rebooting.\n")
        self.assertEqual(raw.call("MEMORY", "DOCTOR"),
                         b"$%d\r\n%s\r\n" % (len(text), text))
        raw.call("HELLO", "3")
        self.assertEqual(raw.call("MEMORY", "DOCTOR"),
                         b"=%d\r\ntxt:%s\r\n" % (len(text) + 4, text))

    def test_memory_doctor_reports_a_peak(self):
        if self.proxy:
            self.skipTest("through the proxy MEMORY DOCTOR describes the client's worker only")
        r = self.client()
        populate(r, "peak", 40, 1 << 20)  # 40 MB, then 36 of them deleted
        time.sleep(0.3)  # the peak is sampled by the cron (Redis's serverCron, Ruvio's tick)
        r.delete(*[f"peak:{i}" for i in range(36)])
        report = r.execute_command("MEMORY", "DOCTOR")
        self.assertTrue(report.startswith(
            b"Sam, I detected a few issues in this Redis instance memory implants:\n\n"
            b" * Peak memory: In the past this instance used more than 150% the memory"),
            report[:200])
        self.assertTrue(report.endswith(b"I'm here to keep you safe, Sam. I want to help you.\n"))


class Redis(Common, unittest.TestCase):
    proxy = False

    def setUp(self):
        self.srv = harness.Server(kind="redis")
        self.addCleanup(self.srv.stop)


class Ruvio(Common, unittest.TestCase):
    proxy = False

    def setUp(self):
        itest.require_ruvio()
        self.tmp = tempfile.TemporaryDirectory(prefix="ruvio-info-")
        self.addCleanup(self.tmp.cleanup)
        self.srv = harness.Server(kind="ruvio", args=["--dir", self.tmp.name,
                                                      "--durability", "everysec",
                                                      "--alloc-trace", "off"])
        self.addCleanup(self.srv.stop)

    def test_expire_cycle_figures(self):
        r = self.client()
        pipe = r.pipeline(transaction=False)
        for i in range(3000):
            pipe.set(f"short:{i}", "v", px=20)
        pipe.execute()
        self.assertTrue(itest.wait_for(lambda: r.dbsize() == 0, timeout=10.0))
        st = info(r, "stats")
        self.assertEqual(st["expired_keys"], 3000)
        # The cycle found mostly expired keys: the running estimate moved off 0 (Redis's
        # 5% weight per cycle), and the time the cycle took is counted (ms, maybe 0).
        self.assertGreater(float(st["expired_stale_perc"]), 0.0)
        self.assertGreaterEqual(st["expire_cycle_cpu_milliseconds"], 0)
        self.assertGreaterEqual(st["expired_time_cap_reached_count"], 0)

    def test_eviction_exceeded_time_while_over_maxmemory(self):
        r = self.client()
        r.config_set("maxmemory-policy", "noeviction")
        r.set("big", "x" * 200000)
        used = info(r, "memory")["used_memory"]
        r.config_set("maxmemory", str(used // 2))
        with self.assertRaises(Exception) as e:
            r.set("more", "y")
        self.assertIn("OOM", str(e.exception))
        time.sleep(0.05)
        st = info(r, "stats")
        self.assertGreater(st["current_eviction_exceeded_time"], 0)
        self.assertGreaterEqual(st["total_eviction_exceeded_time"],
                                st["current_eviction_exceeded_time"])
        r.config_set("maxmemory", str(used * 4))
        r.set("more", "y")  # under the limit again: the span ends, the total keeps it
        st = info(r, "stats")
        self.assertEqual(st["current_eviction_exceeded_time"], 0)
        self.assertGreaterEqual(st["total_eviction_exceeded_time"], 50)

    def test_restore_counts_its_deep_check(self):
        r = self.client()
        r.rpush("l", "a", "b")
        payload = r.dump("l")
        self.assertEqual(info(r, "stats")["dump_payload_sanitizations"], 0)
        r.restore("l2", 0, payload)
        # Ruvio checks every payload deeply (sanitize-dump-payload yes, always).
        self.assertEqual(info(r, "stats")["dump_payload_sanitizations"], 1)

    def test_allocator_figures_are_consistent(self):
        r = self.client()
        populate(r, "alloc", 10000, 100)
        m = info(r, "memory")
        self.assertGreaterEqual(m["allocator_active"], m["allocator_allocated"])
        self.assertLessEqual(m["allocator_resident"], m["allocator_active"])
        self.assertLessEqual(m["allocator_resident"], m["used_memory_rss"])
        self.assertEqual(m["allocator_frag_bytes"],
                         m["allocator_active"] - m["allocator_allocated"])
        self.assertEqual(m["allocator_rss_bytes"],
                         m["allocator_resident"] - m["allocator_active"])
        self.assertEqual(m["rss_overhead_bytes"], m["used_memory_rss"] - m["allocator_resident"])
        self.assertAlmostEqual(m["rss_overhead_ratio"],
                               m["used_memory_rss"] / m["allocator_resident"], places=1)

    def test_malloc_stats_is_mimallocs_report(self):
        text = self.client().execute_command("MEMORY", "MALLOC-STATS")
        self.assertIn(b"heap stats:", text)
        self.assertIn(b"committed:", text)

    def test_bgsave_progress_while_it_runs(self):
        r = self.client()
        populate(r, "prog", 300000, 200)
        r.bgsave()
        p = info(r, "persistence")
        if p["rdb_bgsave_in_progress"] == 1:
            self.assertEqual(p["current_save_keys_total"], 300000)
            self.assertLessEqual(p["current_save_keys_processed"], 300000)
        self.assertTrue(itest.wait_for(
            lambda: info(r, "persistence")["rdb_bgsave_in_progress"] == 0, timeout=30.0))
        p = info(r, "persistence")
        self.assertEqual((p["current_save_keys_total"], p["current_save_keys_processed"],
                          p["current_cow_size"]), (0, 0, 0))


class RuvioProxy(Common, unittest.TestCase):
    """Through the proxy port over 2 workers: the workers' figures add up."""
    proxy = True

    def setUp(self):
        itest.require_ruvio()
        self.tmp = tempfile.TemporaryDirectory(prefix="ruvio-info-")
        self.addCleanup(self.tmp.cleanup)
        self.srv = harness.Server(kind="ruvio", args=["--workers", "2", "--dir", self.tmp.name,
                                                      "--durability", "everysec",
                                                      "--alloc-trace", "off"])
        self.addCleanup(self.srv.stop)
        harness.wait_mesh_up(self.srv.port)


if __name__ == "__main__":
    unittest.main()
