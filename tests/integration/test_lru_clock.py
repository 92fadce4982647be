"""The one-byte LRU clock that does not wrap (worker/store/lru_clock.hpp), through the server:
DEBUG LRU-ADVANCE (Ruvio's test hook, behind enable-debug-command) ages keys by hours; OBJECT
IDLETIME, DEBUG OBJECT lru_seconds_idle, RESTORE IDLETIME and CLIENT NO-TOUCH read and keep
idle times past 256 s in the right order and within the stated resolution (exact under 64 s,
else at most 1/8 above the truth), and allkeys-lru evicts the oldest keys first after the
clock passed 256 s many times."""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402


def within(test, got, truth):
    test.assertGreaterEqual(got, truth)
    test.assertLessEqual(got, truth + truth // 8 + 1)


class LruClock(itest.RuvioCase):
    server_args = ("--enable-debug-command", "yes")

    def advance(self, s):
        self.assertEqual(self.r.execute_command("DEBUG", "LRU-ADVANCE", str(s)), "OK")

    def idle(self, key):
        return int(self.r.object("idletime", key))

    def test_idle_times_past_the_byte(self):
        self.r.set("a", "1")
        self.advance(9000)
        self.r.set("b", "1")
        self.advance(900)
        self.r.set("c", "1")
        self.advance(100)
        a, b, c = self.idle("a"), self.idle("b"), self.idle("c")
        within(self, a, 10000)
        within(self, b, 1000)
        within(self, c, 100)
        self.assertLess(c, b)
        self.assertLess(b, a)
        info = self.r.execute_command("DEBUG", "OBJECT", "b")
        self.assertIn(f"lru_seconds_idle:{b}", info)
        self.r.get("b")
        self.assertEqual(self.idle("b"), 0)

    def test_many_generations_keep_order(self):
        # 700 one-second steps with a key each: the 256 ids are reused through merge passes.
        p = self.r.pipeline(transaction=False)
        for i in range(700):
            p.set(f"k{i}", "v")
            p.execute_command("DEBUG", "LRU-ADVANCE", "1")
        p.execute()
        idles = [self.idle(f"k{i}") for i in range(0, 700, 10)]
        self.assertEqual(idles, sorted(idles, reverse=True))
        for i in range(0, 700, 10):
            within(self, self.idle(f"k{i}"), 700 - i)
        self.assertIn(self.idle("k690"), (10, 11))  # recent: exact (+ a real second passing)

    def test_restore_idletime_and_no_touch(self):
        self.r.set("s", "v")
        payload = self.r.dump("s")
        self.r.restore("r", 0, payload, idletime=5000)
        within(self, self.idle("r"), 5000)
        self.r.restore("q", 0, payload, idletime=300)
        self.assertIn(self.idle("q"), (300, 301))  # exact, give or take a real second
        c = self.raw()
        self.assertEqual(c.call("CLIENT", "NO-TOUCH", "on"), b"+OK\r\n")
        self.assertEqual(c.call("GET", "q"), b"$1\r\nv\r\n")
        self.assertIn(self.idle("q"), (300, 301))  # a NO-TOUCH read leaves the clock alone
        self.advance(1000)
        within(self, self.idle("q"), 1300)

    def test_bad_argument(self):
        c = self.raw()
        self.assertEqual(c.call("DEBUG", "LRU-ADVANCE", "x"),
                         b"-ERR value is not an integer or out of range\r\n")
        self.assertEqual(c.call("DEBUG", "LRU-ADVANCE", "-1"),
                         b"-ERR value is not an integer or out of range\r\n")

    def test_allkeys_lru_evicts_oldest_after_many_wraps(self):
        self.addCleanup(self.r.config_set, "maxmemory", "0")
        self.addCleanup(self.r.config_set, "maxmemory-policy", "noeviction")
        self.r.config_set("maxmemory-policy", "allkeys-lru")
        self.r.config_set("maxmemory-samples", "10")
        self.addCleanup(self.r.config_set, "maxmemory-samples", "5")
        value = "v" * 200
        # Ten batches of 200 keys, 600 s apart: the old byte clock wrapped twice in between.
        for b in range(10):
            p = self.r.pipeline(transaction=False)
            for i in range(200):
                p.set(f"b{b}:{i}", value)
            p.execute()
            for _ in range(3):
                self.advance(200)
        used = int(self.r.info("memory")["used_memory"])
        # Room for about half the keys: the oldest batches must go first.
        limit = used - 200 * 5 * 300
        self.r.config_set("maxmemory", str(limit))
        self.r.set("trigger", "1")
        deadline = time.monotonic() + 5  # an eviction out of time goes on in the timer
        while int(self.r.info("memory")["used_memory"]) > limit and time.monotonic() < deadline:
            time.sleep(0.05)
        survivors = [sum(1 for _ in self.r.scan_iter(match=f"b{b}:*", count=1000))
                     for b in range(10)]
        self.assertGreater(sum(survivors[5:]), sum(survivors[:5]) * 3)
        self.assertGreaterEqual(sum(survivors[8:]), 350)  # the newest nearly all kept
        self.assertLessEqual(survivors[0], 40)


if __name__ == "__main__":
    unittest.main()
