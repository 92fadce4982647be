"""maxmemory and the eight eviction policies: each policy filled past a small limit keeps
used_memory within the limit plus one command's worth and keeps the right keys (volatile-*
never evicts a key without TTL, LFU keeps hot keys, LRU keeps recently used ones, volatile-ttl
evicts the soonest expiry first); -OOM only under noeviction or with nothing evictable; the
exact error texts (OOM, MULTI/EXEC, scripts, CONFIG SET) side by side with redis-server;
through the proxy with 2 workers. test_eviction_durability.py: an evicted key stays gone
after SIGKILL."""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

OOM = b"-OOM command not allowed when used memory > 'maxmemory'.\r\n"
VALUE = "v" * 100
ROOM = 2 * 1024 * 1024  # the limit: what the empty server uses plus this
SLACK = 64 * 1024  # "one command's worth": a pipeline batch of 100 B SETs


def fill(r, prefix, n, ttl=None, batch=200):
    p = r.pipeline(transaction=False)
    for i in range(n):
        if ttl is None:
            p.set(f"{prefix}{i}", VALUE)
        else:
            p.set(f"{prefix}{i}", VALUE, ex=ttl(i) if callable(ttl) else ttl)
        if i % batch == batch - 1:
            p.execute()
    p.execute()


def limit_of(r, room=ROOM):
    return int(r.info("memory")["used_memory"]) + room


class ErrorCases:
    """Texts byte for byte, checked on redis-server and Ruvio alike (limit 1 byte: always
    over it)."""

    def over(self, policy="noeviction"):
        c = self.raw()
        c.call("CONFIG", "SET", "maxmemory-policy", policy)
        c.call("CONFIG", "SET", "maxmemory", "1")
        self.addCleanup(self.r.config_set, "maxmemory", "0")
        self.addCleanup(self.r.config_set, "maxmemory-policy", "noeviction")
        return c

    def test_noeviction_refuses_denyoom_only(self):
        self.r.set("a", "1")
        c = self.over()
        self.assertEqual(c.call("SET", "b", "1"), OOM)
        self.assertEqual(c.call("INCR", "n"), OOM)
        self.assertEqual(c.call("RPUSH", "l", "x"), OOM)
        self.assertEqual(c.call("GET", "a"), b"$1\r\n1\r\n")
        self.assertEqual(c.call("DEL", "a"), b":1\r\n")
        self.assertEqual(c.call("EXPIRE", "a", "10"), b":0\r\n")

    def test_volatile_without_ttl_keys_is_oom(self):
        self.r.set("a", "1")
        c = self.over("volatile-lru")
        self.assertEqual(c.call("SET", "b", "1"), OOM)
        self.assertEqual(c.call("GET", "a"), b"$1\r\n1\r\n")

    def test_multi_exec(self):
        c = self.over()
        self.assertEqual(c.call("MULTI"), b"+OK\r\n")
        self.assertEqual(c.call("SET", "d", "1"), OOM)
        self.assertEqual(c.call("GET", "d"), OOM)
        self.assertEqual(c.call("EXEC"),
                         b"-EXECABORT Transaction discarded because of previous errors.\r\n")
        # Queued under the limit, run over it.
        c.call("CONFIG", "SET", "maxmemory", "0")
        c.call("MULTI")
        self.assertEqual(c.call("SET", "d", "1"), b"+QUEUED\r\n")
        c.call("CONFIG", "SET", "maxmemory", "1")
        self.assertEqual(c.call("EXEC"), b"*2\r\n+OK\r\n+OK\r\n")

    def test_scripts(self):
        self.r.set("e", "1")
        c = self.over()
        self.assertTrue(c.call("EVAL", "return redis.call('set','e','2')", "0").startswith(
            b"-OOM command not allowed when used memory > 'maxmemory'. script: "))
        self.assertEqual(c.call("EVAL", "return redis.pcall('set','e','2')", "0"), OOM)
        self.assertEqual(c.call("EVAL", "return redis.call('get','e')", "0"), b"$1\r\n1\r\n")
        self.assertEqual(c.call("EVAL", "#!lua\nreturn redis.call('get','e')", "0"), OOM)
        self.assertEqual(
            c.call("EVAL", "#!lua flags=no-writes\nreturn redis.call('get','e')", "0"),
            b"$1\r\n1\r\n")
        self.assertEqual(
            c.call("EVAL", "#!lua flags=allow-oom\nreturn redis.call('set','e','3')", "0"),
            b"+OK\r\n")
        # Only the first write is refused: after one, the script is not stopped half-way.
        self.assertEqual(
            c.call("EVAL", "redis.call('del','zz'); return redis.call('set','e','4')", "0"),
            b"+OK\r\n")

    def test_config_set_bad_values(self):
        c = self.raw()
        before = c.call("CONFIG", "GET", "maxmemory")
        cases = {
            ("maxmemory", "abc"): "argument must be a memory value",
            ("maxmemory", "-1"): "argument must be a memory value",
            ("maxmemory-policy", "lru"): "argument(s) must be one of the following: "
            "volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, "
            "allkeys-lfu, allkeys-random, noeviction",
            ("maxmemory-samples", "0"): "argument must be between 1 and 2147483647 inclusive",
            ("maxmemory-eviction-tenacity", "101"): "argument must be between 0 and 100 "
            "inclusive",
            ("lfu-log-factor", "-1"): "argument must be between 0 and 2147483647 inclusive",
            ("lfu-decay-time", "x"): "argument couldn't be parsed into an integer",
        }
        for (name, value), why in cases.items():
            want = (f"-ERR CONFIG SET failed (possibly related to argument '{name}') - "
                    f"{why}\r\n").encode()
            self.assertEqual(c.call("CONFIG", "SET", name, value), want, name)
        self.assertEqual(c.call("CONFIG", "GET", "maxmemory"), before)
        self.assertEqual(c.call("CONFIG", "GET", "maxmemory-policy"),
                         b"*2\r\n$16\r\nmaxmemory-policy\r\n$10\r\nnoeviction\r\n")
        self.assertEqual(c.call("CONFIG", "SET", "maxmemory-policy", "ALLKEYS-LFU"), b"+OK\r\n")
        self.addCleanup(self.r.config_set, "maxmemory-policy", "noeviction")
        self.assertEqual(c.call("CONFIG", "GET", "maxmemory-policy"),
                         b"*2\r\n$16\r\nmaxmemory-policy\r\n$11\r\nallkeys-lfu\r\n")
        self.assertEqual(c.call("CONFIG", "SET", "maxmemory-samples", "10"), b"+OK\r\n")
        self.addCleanup(self.r.config_set, "maxmemory-samples", "5")
        self.assertEqual(c.call("CONFIG", "GET", "maxmemory-samples"),
                         b"*2\r\n$17\r\nmaxmemory-samples\r\n$2\r\n10\r\n")

    def test_object_freq_idletime_by_policy(self):
        c = self.raw()
        c.call("SET", "k", "v")
        self.assertEqual(
            c.call("OBJECT", "FREQ", "k"),
            b"-ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
            b"Please note that when switching between policies at runtime LRU and LFU data "
            b"will take some time to adjust.\r\n")
        self.assertEqual(c.call("OBJECT", "IDLETIME", "k"), b":0\r\n")
        c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
        self.addCleanup(self.r.config_set, "maxmemory-policy", "noeviction")
        self.assertEqual(
            c.call("OBJECT", "IDLETIME", "k"),
            b"-ERR An LFU maxmemory policy is selected, idle time not tracked. Please note "
            b"that when switching between policies at runtime LRU and LFU data will take some "
            b"time to adjust.\r\n")
        c.call("SET", "f", "v")  # a new key starts at LFU_INIT_VAL
        self.assertEqual(c.call("OBJECT", "FREQ", "f"), b":5\r\n")
        c.call("TYPE", "f")
        c.call("TTL", "f")
        c.call("EXISTS", "f")
        self.assertEqual(c.call("OBJECT", "FREQ", "f"), b":5\r\n")  # these do not touch
        self.assertEqual(c.call("TOUCH", "f", "nokey"), b":1\r\n")
        self.assertEqual(c.call("OBJECT", "FREQ", "f"), b":6\r\n")  # the first hit always counts

    def test_evicted_keyspace_event(self):
        # Each evicted key is published as an "evicted" event (class e); with nothing left to
        # evict the SET itself is refused.
        self.r.set("a", "1")
        self.r.set("b", "2")
        self.r.config_set("notify-keyspace-events", "Ee")
        self.addCleanup(self.r.config_set, "notify-keyspace-events", "")
        sub = self.r.pubsub()
        self.addCleanup(sub.close)
        sub.subscribe("__keyevent@0__:evicted")
        self.assertEqual(sub.get_message(timeout=2)["type"], "subscribe")
        c = self.over("allkeys-random")
        self.assertEqual(c.call("SET", "c", "3"), OOM)
        got = []
        deadline = time.monotonic() + 5
        while len(got) < 2 and time.monotonic() < deadline:
            m = sub.get_message(timeout=0.5)
            if m is not None and m["type"] == "message":
                got.append(m["data"])
        self.assertEqual(sorted(got), ["a", "b"])
        self.r.config_set("maxmemory", "0")
        self.assertEqual(self.r.dbsize(), 0)

    def test_functions_by_flags(self):
        # FCALL over the limit, as a shebang EVAL: a function that may write and lacks
        # allow-oom is refused; allow-oom and no-writes ones run.
        self.r.execute_command(
            "FUNCTION", "LOAD",
            "#!lua name=oomlib\n"
            "redis.register_function('w', function(k) return redis.call('GET', k[1]) end)\n"
            "redis.register_function{function_name='ao', callback=function(k) "
            "return redis.call('SET', k[1], 'x') end, flags={'allow-oom'}}\n"
            "redis.register_function{function_name='ro', callback=function(k) "
            "return redis.call('GET', k[1]) end, flags={'no-writes'}}\n")
        self.addCleanup(self.r.execute_command, "FUNCTION", "FLUSH")
        self.r.set("fk", "1")
        c = self.over()
        self.assertEqual(c.call("FCALL", "w", "1", "fk"), OOM)
        self.assertEqual(c.call("FCALL", "ro", "1", "fk"), b"$1\r\n1\r\n")
        self.assertEqual(c.call("FCALL", "ao", "1", "fk"), b"+OK\r\n")
        self.assertEqual(c.call("FCALL", "nosuch", "0"), b"-ERR Function not found\r\n")

    def test_client_no_evict(self):
        c = self.raw()
        self.assertEqual(c.call("CLIENT", "NO-EVICT", "on"), b"+OK\r\n")
        self.assertEqual(c.call("CLIENT", "NO-EVICT", "OFF"), b"+OK\r\n")
        self.assertEqual(c.call("CLIENT", "NO-EVICT", "maybe"), b"-ERR syntax error\r\n")
        self.assertEqual(c.call("CLIENT", "NO-EVICT"),
                         b"-ERR wrong number of arguments for 'client|no-evict' command\r\n")


class RedisReference(ErrorCases, itest.RedisCase):
    pass


class Ruvio(ErrorCases, itest.RuvioCase):
    def test_client_no_touch(self):
        # Redis 7.2's: not in the 7.0.15 reference, so Ruvio only.
        c = self.raw()
        c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
        self.addCleanup(self.r.config_set, "maxmemory-policy", "noeviction")
        c.call("SET", "f", "v")
        self.assertEqual(c.call("CLIENT", "NO-TOUCH", "on"), b"+OK\r\n")
        for _ in range(5):
            c.call("GET", "f")
        self.assertEqual(c.call("OBJECT", "FREQ", "f"), b":5\r\n")
        self.assertEqual(c.call("TOUCH", "f"), b":1\r\n")  # TOUCH still touches
        self.assertEqual(c.call("OBJECT", "FREQ", "f"), b":6\r\n")
        self.assertEqual(c.call("CLIENT", "NO-TOUCH", "x"), b"-ERR syntax error\r\n")
        self.assertEqual(c.call("CLIENT", "NO-TOUCH", "off"), b"+OK\r\n")
        for _ in range(20):
            c.call("GET", "f")
        self.assertGreater(int(c.call("OBJECT", "FREQ", "f")[1:-2]), 5)


class PolicyCases:
    """Fill past the limit under each policy (one server for all, flushed between)."""

    def under(self, policy, room=ROOM):
        self.evicted_before = self.evicted()
        self.r.config_set("maxmemory", "0")
        self.r.config_set("maxmemory-policy", policy)
        limit = limit_of(self.r, room * self.workers)  # INFO sums the workers
        self.r.config_set("maxmemory", str(limit))
        self.addCleanup(self.r.config_set, "maxmemory", "0")
        self.addCleanup(self.r.config_set, "maxmemory-policy", "noeviction")
        return limit

    def used(self):
        return int(self.r.info("memory")["used_memory"])

    def evicted(self):
        return int(self.r.info("stats")["evicted_keys"])

    def check_within(self, limit):
        self.assertLessEqual(self.used(), limit + SLACK * self.workers)
        self.assertGreater(self.evicted(), self.evicted_before)

    def test_allkeys_random(self):
        limit = self.under("allkeys-random")
        fill(self.r, "k:", 40000)
        self.check_within(limit)
        self.assertLess(self.r.dbsize(), 40000)

    def test_allkeys_lru_keeps_recent(self):
        limit = self.under("allkeys-lru")
        w = self.workers
        fill(self.r, "old:", 8000 * w)
        hot = [f"old:{i}" for i in range(0, 8000 * w, 40)]
        time.sleep(1.1)  # the LRU clock has a one second resolution, as Redis's
        self.r.mget(hot)
        fill(self.r, "new:", 6000 * w)  # still under the limit
        time.sleep(1.1)
        self.r.mget(hot)
        fill(self.r, "newer:", 6000 * w)  # over it: the idlest (old:) go first
        self.check_within(limit)
        self.assertGreaterEqual(sum(1 for v in self.r.mget(hot) if v is not None),
                                len(hot) * 0.9)
        new = self.r.mget([f"new:{i}" for i in range(6000 * w)])
        self.assertGreaterEqual(sum(1 for v in new if v is not None), 6000 * w * 0.9)
        old = self.r.mget([f"old:{i}" for i in range(8000 * w) if i % 40])
        self.assertLess(sum(1 for v in old if v is not None), len(old) * 0.9)

    def test_allkeys_lfu_keeps_hot(self):
        limit = self.under("allkeys-lfu")
        hot = [f"hot:{i}" for i in range(200)]
        fill(self.r, "hot:", 200)
        for _ in range(30):
            self.r.mget(hot)
        fill(self.r, "cold:", 40000)
        self.check_within(limit)
        kept = sum(1 for k in hot if self.r.exists(k))
        self.assertGreaterEqual(kept, 190)

    def test_volatile_policies_never_evict_persistent_keys(self):
        for policy in ("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"):
            with self.subTest(policy=policy):
                self.r.flushall()
                limit = self.under(policy, room=3 * 1024 * 1024)
                fill(self.r, "keep:", 3000)
                fill(self.r, "tmp:", 30000 * self.workers, ttl=1000)
                self.check_within(limit)
                kept = self.r.mget([f"keep:{i}" for i in range(3000)])
                self.assertEqual(sum(1 for v in kept if v is not None), 3000)
                self.assertLess(self.r.dbsize(), 3000 + 30000 * self.workers)

    def test_volatile_ttl_evicts_soonest_first(self):
        limit = self.under("volatile-ttl")
        n = 30000 * self.workers
        fill(self.r, "t:", n, ttl=lambda i: 1000 + i)  # t:0 expires first
        self.check_within(limit)
        early = sum(1 for v in self.r.mget([f"t:{i}" for i in range(3000)]) if v is not None)
        late = sum(1 for v in self.r.mget([f"t:{i}" for i in range(n - 3000, n)]) if v is not None)
        self.assertLess(early, 3000 * 0.2)
        self.assertGreater(late, 3000 * 0.9)

    def test_noeviction_fills_then_refuses(self):
        self.under("noeviction")
        evicted = self.evicted()
        c = self.raw()
        refused = 0
        for i in range(40000):
            if c.call("SET", f"k:{i}", VALUE) == OOM:
                refused = i
                break
        self.assertGreater(refused, 0)
        self.assertEqual(self.evicted(), evicted)
        self.assertEqual(c.call("GET", "k:0"), b"$100\r\n" + VALUE.encode() + b"\r\n")
        # CONFIG SET at run time: a policy that may evict lets the writes in again.
        self.r.config_set("maxmemory-policy", "allkeys-lru")
        self.assertEqual(c.call("SET", f"k:{refused}", "1"), b"+OK\r\n")
        self.assertGreater(self.evicted(), evicted)

    def test_lowering_the_limit_evicts_in_the_background(self):
        self.r.config_set("maxmemory-policy", "allkeys-random")
        self.addCleanup(self.r.config_set, "maxmemory-policy", "noeviction")
        fill(self.r, "k:", 20000)
        before = self.r.dbsize()
        self.r.config_set("maxmemory", str(limit_of(self.r, 0) - 1024 * 1024 * self.workers))
        self.addCleanup(self.r.config_set, "maxmemory", "0")
        deadline = time.monotonic() + 5
        while self.r.dbsize() == before and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertLess(self.r.dbsize(), before)


class RuvioPolicies(PolicyCases, itest.RuvioCase):
    workers = 1


class RuvioProxyPolicies(PolicyCases, itest.RuvioCase):
    """Through the proxy port of 2 workers: maxmemory is split, each worker enforces half."""

    workers = 2
    server_args = ("--workers", "2")

    def test_info_reports_the_total(self):
        self.r.config_set("maxmemory", "100mb")
        self.addCleanup(self.r.config_set, "maxmemory", "0")
        mem = self.r.info("memory")
        self.assertEqual(mem["maxmemory"], 100 * 1024 * 1024)
        self.assertEqual(mem["maxmemory_human"], "100.00M")
        self.assertEqual(mem["maxmemory_policy"], "noeviction")


if __name__ == "__main__":
    unittest.main()
