"""Lazy free of 1M-element collections on a real server (issue 9): a 1,000,000-field hash, a
1M-member set, a 1M-member zset and a 1M-element list are UNLINKed while a second client PINGs; every PING must
come back within a generous bound while the memory is freed in housekeeping's bounded steps,
and used_memory must return to near its start within a bounded time. The same with a plain
DEL (lazyfree-lazy-user-del no, Redis's default) is measured and printed, not asserted, and so
are the figures of the lazy runs: speed is never asserted tightly."""

import os
import socket
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "differential"))
from resp_raw import encode  # noqa: E402

N = 1_000_000
BATCH = 1000  # elements per pipelined command
PING_BOUND_S = 0.200
FREE_BOUND_S = 20.0
NEAR_START = 4 << 20  # used_memory back within 4 MiB of where it started


def resp(*args):
    return encode(args)


def commands(kind, key):
    """The pipelined commands that build a 1M-element value of `kind`."""
    for start in range(0, N, BATCH):
        r = range(start, start + BATCH)
        if kind == "hash":
            args = [x for i in r for x in (b"field:%d" % i, b"v%d" % i)]
            yield resp("HSET", key, *args)
        elif kind == "list":
            yield resp("RPUSH", key, *[b"element:%d" % i for i in r])
        elif kind == "set":
            yield resp("SADD", key, *[b"member:%d" % i for i in r])
        else:
            args = [x for i in r for x in (b"%d" % i, b"member:%d" % i)]
            yield resp("ZADD", key, *args)


def load(port, kind, key):
    """Sends every command on one connection and reads the integer replies (one line each)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        payload = b"".join(commands(kind, key))
        sent = threading.Thread(target=s.sendall, args=(payload,))
        sent.start()
        want = N // BATCH
        buf = bytearray()
        lines = 0
        deadline = time.monotonic() + 60
        while lines < want and time.monotonic() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                break
            lines += chunk.count(b"\r\n")
            buf += chunk
        sent.join(10)
        assert lines == want, f"{lines} replies of {want}"
        assert buf.startswith(b":%d\r\n" % BATCH), buf[:40]


class Pinger(threading.Thread):
    """PINGs from a second client in a loop and keeps the slowest round trip."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.stop_flag = threading.Event()
        self.max_rtt = 0.0
        self.count = 0

    def run(self):
        ping = resp("PING")
        while not self.stop_flag.is_set():
            t0 = time.perf_counter()
            self.sock.sendall(ping)
            got = b""
            while not got.endswith(b"\r\n"):
                got += self.sock.recv(64)
            rtt = time.perf_counter() - t0
            assert got == b"+PONG\r\n", got
            self.max_rtt = max(self.max_rtt, rtt)
            self.count += 1
            time.sleep(0.001)

    def finish(self):
        self.stop_flag.set()
        self.join(10)
        self.sock.close()


def info_field(r, section, name):
    return int(r.info(section)[name])


class LazyFree1M(itest.RuvioCase):
    def measure(self, kind, command):
        """Loads a 1M-element `kind`, deletes it with `command` while PINGing; returns
        (max PING s, seconds until the memory was back, seconds the delete reply took)."""
        r = self.r
        key = f"big:{kind}"
        start = info_field(r, "memory", "used_memory")
        t0 = time.monotonic()
        load(self.port, kind, key)
        loaded = time.monotonic() - t0
        card = {"hash": r.hlen, "set": r.scard, "zset": r.zcard, "list": r.llen}[kind](key)
        self.assertEqual(card, N)
        full = info_field(r, "memory", "used_memory")
        self.assertGreater(full - start, N * 8)
        pinger = Pinger(self.port)
        pinger.start()
        time.sleep(0.05)
        t0 = time.monotonic()
        self.assertEqual(r.execute_command(command, key), 1)
        replied = time.monotonic() - t0
        self.assertEqual(r.exists(key), 0)
        freed_at = None
        deadline = t0 + FREE_BOUND_S
        while time.monotonic() < deadline:
            mem = r.info("memory")
            if (int(mem["used_memory"]) <= start + NEAR_START
                    and info_field(r, "memory", "lazyfree_pending_objects") == 0):
                freed_at = time.monotonic() - t0
                break
            time.sleep(0.005)
        time.sleep(0.05)
        pinger.finish()
        self.assertIsNotNone(freed_at, f"used_memory did not come back within {FREE_BOUND_S}s")
        print(f"\n    {kind} 1M: load {loaded:.1f}s, {command}: reply {replied * 1000:.1f} ms, "
              f"memory back after {freed_at * 1000:.0f} ms, max PING "
              f"{pinger.max_rtt * 1000:.1f} ms over {pinger.count} PINGs "
              f"({(full - start) >> 20} MiB freed)", flush=True)
        return pinger.max_rtt, freed_at, replied

    def check_kind(self, kind):
        self.r.config_set("lazyfree-lazy-user-del", "no")
        ping, _, replied = self.measure(kind, "UNLINK")
        self.assertLess(ping, PING_BOUND_S)
        self.assertLess(replied, PING_BOUND_S)
        self.measure(kind, "DEL")  # freed on the spot: the cost is printed, not asserted

    def test_hash(self):
        self.check_kind("hash")

    def test_set(self):
        self.check_kind("set")

    def test_zset(self):
        self.check_kind("zset")

    def test_list(self):
        self.check_kind("list")

    def test_del_follows_lazyfree_lazy_user_del(self):
        self.r.config_set("lazyfree-lazy-user-del", "yes")
        try:
            ping, _, _ = self.measure("hash", "DEL")
            self.assertLess(ping, PING_BOUND_S)
        finally:
            self.r.config_set("lazyfree-lazy-user-del", "no")

    def test_flushall_async(self):
        r = self.r
        start = info_field(r, "memory", "used_memory")
        load(self.port, "set", "big:set")
        r.set("small", "x")
        pinger = Pinger(self.port)
        pinger.start()
        t0 = time.monotonic()
        self.assertTrue(r.flushall(asynchronous=True))
        self.assertEqual(r.dbsize(), 0)
        back = False
        while time.monotonic() < t0 + FREE_BOUND_S and not back:
            back = info_field(r, "memory", "used_memory") <= start + NEAR_START
            time.sleep(0.005)
        took = time.monotonic() - t0
        pinger.finish()
        self.assertTrue(back)
        print(f"\n    FLUSHALL ASYNC of a 1M set: memory back after {took * 1000:.0f} ms, "
              f"max PING {pinger.max_rtt * 1000:.1f} ms", flush=True)
        self.assertLess(pinger.max_rtt, PING_BOUND_S)


class LazyFreePathCases:
    """Which deletions go through the queue, as Redis 7.0 decides (dbDelete and friends):
    counted by INFO's lazyfreed_objects. Run against redis-server too, which proves the
    expected counts are Redis's."""

    def lazyfreed(self):
        return info_field(self.r, "memory", "lazyfreed_objects")

    def big(self, key="big"):
        self.r.sadd(key, *[f"m{i}" for i in range(1000)])  # free effort 1000 > 64

    def settle(self, before, want):
        deadline = time.monotonic() + 5
        while self.lazyfreed() < before + want and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.15)  # a housekeeping tick: nothing more may come
        self.assertEqual(self.lazyfreed(), before + want)

    def check(self, config, delete, gone=True):
        """`delete` frees `big` at once with `config` no, and through the queue with yes."""
        r = self.r
        for value, want in (("no", 0), ("yes", 1)):
            r.config_set(config, value)
            try:
                r.delete("big")  # a string left by the previous round
                self.big()
                before = self.lazyfreed()
                delete()
                self.assertEqual(r.exists("big"), 0 if gone else 1)
                self.settle(before, want)
            finally:
                r.config_set(config, "no")

    def test_overwrite_is_server_del(self):
        self.check("lazyfree-lazy-server-del", lambda: self.r.set("big", "x"), gone=False)
        self.assertEqual(self.r.get("big"), "x")

    def test_store_with_an_empty_result_is_server_del(self):
        self.check("lazyfree-lazy-server-del",
                   lambda: self.assertEqual(self.r.sinterstore("big", ["big", "none"]), 0))
        self.check("lazyfree-lazy-server-del",
                   lambda: self.assertEqual(self.r.zunionstore("big", ["none"]), 0))

    def test_copy_replace_is_server_del(self):
        self.r.set("src", "v")
        self.check("lazyfree-lazy-server-del",
                   lambda: self.assertEqual(self.r.copy("src", "big", replace=True), 1)
                   or self.r.delete("big"))

    def test_expire_in_the_past_is_lazy_expire(self):
        self.check("lazyfree-lazy-expire",
                   lambda: self.assertEqual(self.r.expire("big", -1), True))

    def test_del_is_user_del_and_unlink_always_lazy(self):
        self.check("lazyfree-lazy-user-del", lambda: self.assertEqual(self.r.delete("big"), 1))
        self.big()
        before = self.lazyfreed()
        self.assertEqual(self.r.unlink("big"), 1)
        self.settle(before, 1)


class LazyFreePathsRedis(LazyFreePathCases, itest.RedisCase):
    pass


class LazyFreePaths(LazyFreePathCases, itest.RuvioCase):
    pass


if __name__ == "__main__":
    unittest.main()
