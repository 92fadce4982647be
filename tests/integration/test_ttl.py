"""TTLs: EXPIRE and friends with NX/XX/GT/LT, TTL queries, PERSIST, SET's expiry options,
lazy and active expiry, and FLUSHALL giving memory back. Same assertions against the
reference redis-server and against Ruvio."""

import time
import unittest

import itest

NOT_INT = "ERR value is not an integer or out of range"


def arity(cmd):
    return f"ERR wrong number of arguments for '{cmd}' command"


def info(r, section):
    return r.info(section)


class TTLCases:
    def test_expire_ttl_persist(self):
        r = self.r
        self.assertEqual(self.raw_call("EXPIRE", "nokey", "100"), b":0\r\n")
        self.assertEqual(self.raw_call("TTL", "nokey"), b":-2\r\n")
        self.assertEqual(self.raw_call("PTTL", "nokey"), b":-2\r\n")
        self.assertEqual(self.raw_call("EXPIRETIME", "nokey"), b":-2\r\n")
        self.assertEqual(self.raw_call("PEXPIRETIME", "nokey"), b":-2\r\n")
        self.assertEqual(self.raw_call("PERSIST", "nokey"), b":0\r\n")
        r.set("k", "v")
        self.assertEqual(self.raw_call("TTL", "k"), b":-1\r\n")
        self.assertEqual(self.raw_call("PTTL", "k"), b":-1\r\n")
        self.assertEqual(self.raw_call("EXPIRETIME", "k"), b":-1\r\n")
        self.assertEqual(self.raw_call("PEXPIRETIME", "k"), b":-1\r\n")
        self.assertEqual(self.raw_call("PERSIST", "k"), b":0\r\n")
        now = time.time()
        self.assertEqual(self.raw_call("EXPIRE", "k", "100"), b":1\r\n")
        self.assertEqual(self.raw_call("TTL", "k"), b":100\r\n")
        self.assertTrue(99000 < r.pttl("k") <= 100000)
        self.assertAlmostEqual(r.execute_command("EXPIRETIME", "k"), now + 100, delta=2)
        self.assertAlmostEqual(r.execute_command("PEXPIRETIME", "k"), (now + 100) * 1000,
                               delta=2000)
        self.assertEqual(self.raw_call("PEXPIRE", "k", "5000"), b":1\r\n")
        self.assertEqual(self.raw_call("TTL", "k"), b":5\r\n")
        self.assertEqual(self.raw_call("PERSIST", "k"), b":1\r\n")
        self.assertEqual(self.raw_call("TTL", "k"), b":-1\r\n")
        at = int(time.time()) + 1000
        self.assertEqual(self.raw_call("EXPIREAT", "k", at), b":1\r\n")
        self.assertEqual(self.raw_call("EXPIRETIME", "k"), b":%d\r\n" % at)
        self.assertEqual(self.raw_call("PEXPIREAT", "k", at * 1000 + 123), b":1\r\n")
        self.assertEqual(self.raw_call("PEXPIRETIME", "k"), b":%d\r\n" % (at * 1000 + 123))
        self.assertEqual(self.raw_call("EXPIRETIME", "k"), b":%d\r\n" % at)
        # A time in the past or a non-positive TTL deletes the key at once.
        self.assertEqual(self.raw_call("EXPIREAT", "k", "1"), b":1\r\n")
        self.assertEqual(self.raw_call("EXISTS", "k"), b":0\r\n")
        r.set("k", "v")
        self.assertEqual(self.raw_call("EXPIRE", "k", "-1"), b":1\r\n")
        self.assertEqual(self.raw_call("GET", "k"), b"$-1\r\n")
        r.set("k", "v")
        self.assertEqual(self.raw_call("PEXPIRE", "k", "0"), b":1\r\n")
        self.assertEqual(self.raw_call("EXISTS", "k"), b":0\r\n")

    def test_expire_errors(self):
        self.r.set("k", "v")
        self.assertError(NOT_INT, "EXPIRE", "k", "abc")
        self.assertError(NOT_INT, "PEXPIRE", "k", "1.5")
        self.assertError("ERR invalid expire time in 'expire' command",
                         "EXPIRE", "k", "9223372036854775807")
        self.assertError("ERR invalid expire time in 'pexpire' command",
                         "PEXPIRE", "k", "9223372036854775807")
        self.assertError("ERR invalid expire time in 'expireat' command",
                         "EXPIREAT", "k", "9223372036854775807")
        self.assertError("ERR NX and XX, GT or LT options at the same time are not compatible",
                         "EXPIRE", "k", "10", "NX", "XX")
        self.assertError("ERR NX and XX, GT or LT options at the same time are not compatible",
                         "EXPIRE", "k", "10", "NX", "GT")
        self.assertError("ERR GT and LT options at the same time are not compatible",
                         "EXPIRE", "k", "10", "GT", "LT")
        self.assertError("ERR Unsupported option BOGUS", "EXPIRE", "k", "10", "BOGUS")
        self.assertError(arity("expire"), "EXPIRE", "k")
        self.assertError(arity("ttl"), "TTL")
        self.assertError(arity("persist"), "PERSIST")
        self.assertError(arity("expiretime"), "EXPIRETIME")
        self.assertEqual(self.r.ttl("k"), -1)

    def test_expire_nx_xx_gt_lt(self):
        r = self.r
        r.set("k", "v")
        # No TTL: XX and GT refuse (no TTL counts as infinite), NX and LT set.
        self.assertEqual(self.raw_call("EXPIRE", "k", "100", "XX"), b":0\r\n")
        self.assertEqual(self.raw_call("EXPIRE", "k", "100", "GT"), b":0\r\n")
        self.assertEqual(self.raw_call("TTL", "k"), b":-1\r\n")
        self.assertEqual(self.raw_call("EXPIRE", "k", "100", "NX"), b":1\r\n")
        self.assertEqual(self.raw_call("EXPIRE", "k", "200", "NX"), b":0\r\n")
        self.assertEqual(self.raw_call("TTL", "k"), b":100\r\n")
        self.assertEqual(self.raw_call("EXPIRE", "k", "200", "XX"), b":1\r\n")
        self.assertEqual(self.raw_call("EXPIRE", "k", "150", "GT"), b":0\r\n")
        self.assertEqual(self.raw_call("EXPIRE", "k", "300", "GT"), b":1\r\n")
        self.assertEqual(self.raw_call("TTL", "k"), b":300\r\n")
        self.assertEqual(self.raw_call("EXPIRE", "k", "400", "LT"), b":0\r\n")
        self.assertEqual(self.raw_call("EXPIRE", "k", "50", "LT"), b":1\r\n")
        self.assertEqual(self.raw_call("TTL", "k"), b":50\r\n")
        self.assertEqual(self.raw_call("EXPIRE", "k", "60", "XX", "GT"), b":1\r\n")
        self.assertEqual(self.raw_call("TTL", "k"), b":60\r\n")
        self.assertEqual(self.raw_call("PEXPIRE", "k", "1000", "xx", "lt"), b":1\r\n")
        self.assertEqual(self.raw_call("TTL", "k"), b":1\r\n")
        r.persist("k")
        self.assertEqual(self.raw_call("EXPIRE", "k", "70", "LT"), b":1\r\n")
        at = int(time.time()) + 500
        self.assertEqual(self.raw_call("EXPIREAT", "k", at, "GT"), b":1\r\n")
        self.assertEqual(self.raw_call("PEXPIREAT", "k", at * 1000 - 1, "GT"), b":0\r\n")
        self.assertEqual(self.raw_call("PEXPIREAT", "k", at * 1000 - 1, "LT"), b":1\r\n")
        self.assertEqual(self.raw_call("EXPIRE", "nokey", "10", "NX"), b":0\r\n")

    def test_set_expiry_options(self):
        r = self.r
        r.set("a", "v", ex=100)
        self.assertEqual(self.raw_call("TTL", "a"), b":100\r\n")
        r.set("a", "w", keepttl=True)
        self.assertEqual(self.raw_call("TTL", "a"), b":100\r\n")
        r.set("a", "x")
        self.assertEqual(self.raw_call("TTL", "a"), b":-1\r\n")
        r.set("b", "v", px=100000)
        self.assertTrue(99000 < r.pttl("b") <= 100000)
        at = int(time.time()) + 100
        r.execute_command("SET", "c", "v", "EXAT", at)
        self.assertEqual(self.raw_call("EXPIRETIME", "c"), b":%d\r\n" % at)
        r.execute_command("SET", "c", "v", "PXAT", at * 1000 + 7)
        self.assertEqual(self.raw_call("PEXPIRETIME", "c"), b":%d\r\n" % (at * 1000 + 7))
        r.setex("d", 100, "v")
        self.assertEqual(self.raw_call("TTL", "d"), b":100\r\n")

    def test_lazy_expiry(self):
        r = self.r
        r.set("a", "v", px=100)
        r.set("b", "v", px=100)
        r.set("c", "v", px=100)
        r.set("keep", "v")
        time.sleep(0.25)
        self.assertEqual(self.raw_call("GET", "a"), b"$-1\r\n")
        self.assertEqual(self.raw_call("EXISTS", "b"), b":0\r\n")
        self.assertEqual(self.raw_call("TTL", "c"), b":-2\r\n")
        self.assertEqual(self.raw_call("GET", "keep"), b"$1\r\nv\r\n")
        self.assertEqual(self.raw_call("APPEND", "a", "x"), b":1\r\n")  # a new key
        self.assertEqual(self.raw_call("TTL", "a"), b":-1\r\n")

    def test_active_expiry(self):
        # 10,000 keys that nobody touches again must leave on their own.
        r = self.r
        before = int(info(r, "stats")["expired_keys"])
        p = r.pipeline(transaction=False)
        for i in range(10000):
            p.set(f"exp:{i}", "v", px=100)
        p.set("keep", "v")
        p.execute()
        t0 = time.monotonic()

        def gone():
            ks = info(r, "keyspace")
            return ks.get("db0", {}).get("keys") == 1

        self.assertTrue(itest.wait_for(gone, timeout=2.6, interval=0.05),
                        f"keyspace after {time.monotonic() - t0:.1f}s: {info(r, 'keyspace')}")
        self.assertEqual(r.dbsize(), 1)
        self.assertEqual(info(r, "keyspace")["db0"]["expires"], 0)
        self.assertEqual(int(info(r, "stats")["expired_keys"]) - before, 10000)

    # Whether FLUSHALL's memory must be back with the OS (RSS) within 3 s. Ruvio's must. Redis
    # guarantees only used_memory: its RSS is jemalloc's business (a FLUSHALL purges, yet on a
    # fresh machine redis-server's RSS stayed at 69.9 -> 68.6 MB for 3 s after a load from
    # 13.9 MB, where this machine sees it fall at once), so the reference checks used_memory.
    rss_returned = True

    def test_flushall_returns_memory(self):
        r = self.r
        mem0 = info(r, "memory")
        p = r.pipeline(transaction=False)
        value = "x" * 200
        for i in range(200000):
            p.set(f"mem:{i}", value)
            if i % 5000 == 4999:
                p.execute()
        p.execute()
        mem1 = info(r, "memory")
        self.assertGreater(mem1["used_memory"] - mem0["used_memory"], 200000 * 200)
        self.assertEqual(r.flushall(), True)
        mem2 = info(r, "memory")

        def rss_fell():
            m = info(r, "memory")
            # At least half of what the load added goes back to the OS (Redis: ~90%).
            grown = mem1["used_memory_rss"] - mem0["used_memory_rss"]
            return m["used_memory_rss"] < mem1["used_memory_rss"] - grown // 2 and m

        self.assertLess(mem2["used_memory"], mem0["used_memory"] + 5 * 1024 * 1024,
                        (mem0["used_memory"], mem1["used_memory"], mem2["used_memory"]))
        self.assertEqual(r.dbsize(), 0)
        if not self.rss_returned:
            return
        m = itest.wait_for(rss_fell, timeout=3, interval=0.1)
        self.assertTrue(m, (mem0["used_memory_rss"], mem1["used_memory_rss"],
                            info(r, "memory")["used_memory_rss"]))


class RedisReference(TTLCases, itest.RedisCase):
    rss_returned = False


class Ruvio(TTLCases, itest.RuvioCase):
    pass


class RuvioProxy(TTLCases, itest.RuvioProxyCase):
    pass


if __name__ == "__main__":
    unittest.main()
