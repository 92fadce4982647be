"""DUMP/RESTORE against a real redis-server 7.0: random keys of every type and encoding
(dump_data.py) move both ways — redis-server DUMP -> Ruvio RESTORE and Ruvio DUMP ->
redis-server RESTORE — and each key must read back element for element with the same
DEBUG DIGEST-VALUE; DEBUG DIGEST of the whole dataset must match; DUMP of the same value must
be byte for byte what redis-server writes. At 1 worker and through a 2-worker proxy port.

Env: RUVIO_DIFF_SEED (the seed, printed), RUVIO_DUMP_KEYS (keys per direction, default 2000;
10000 for the long run)."""

import os
import random
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import dump_data as dd  # noqa: E402
import harness  # noqa: E402
import sidebyside  # noqa: E402

KEYS = int(os.environ.get("RUVIO_DUMP_KEYS", "2000"))


def seed():
    s = int(os.environ.get("RUVIO_DIFF_SEED", random.randrange(2**32)))
    print(f"dump differential seed {s} (RUVIO_DIFF_SEED={s} to replay)", file=sys.stderr)
    return s


def dumps(r, keys):
    p = r.pipeline(transaction=False)
    for k in keys:
        p.dump(k)
        p.pttl(k)
    out = p.execute()
    return [(out[2 * i], out[2 * i + 1]) for i in range(len(keys))]


def restore_all(r, keys, payloads):
    p = r.pipeline(transaction=False)
    for k, (payload, pttl) in zip(keys, payloads):
        p.restore(k, max(pttl, 0), payload)
    return p.execute(raise_on_error=False)


def digests(r, keys):
    p = r.pipeline(transaction=False)
    for k in keys:
        p.execute_command("DEBUG", "DIGEST-VALUE", k)
    return [x[0] if isinstance(x, list) else x for x in p.execute()]


class DumpDifferential(sidebyside.SideBySideCase):
    redis_args = dd.redis_args()
    ruvio_args = dd.ruvio_args()

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.rr = cls.ref.client()
        cls.rv = cls.cand.client()

    @classmethod
    def tearDownClass(cls):
        cls.rr.close()
        cls.rv.close()
        super().tearDownClass()

    def setUp(self):
        self.rr.flushall()
        self.rv.flushall()

    def compare(self, keys, seed_):
        for k, mine, ref in zip(keys, dd.read_keys(self.rv, keys), dd.read_keys(self.rr, keys)):
            self.assertEqual(mine, ref, f"key {k!r} seed {seed_}")
        if self.workers == 1:
            self.assertEqual(digests(self.rv, keys), digests(self.rr, keys), f"seed {seed_}")
            self.assertEqual(self.rv.execute_command("DEBUG", "DIGEST"),
                             self.rr.execute_command("DEBUG", "DIGEST"), f"seed {seed_}")

    def test_redis_to_ruvio(self):
        s = seed()
        keys = dd.populate(self.rr, random.Random(s), KEYS)
        res = restore_all(self.rv, keys, dumps(self.rr, keys))
        self.assertEqual([x for x in res if x not in (True, b"OK")], [], f"seed {s}")
        self.compare(keys, s)

    def test_ruvio_to_redis(self):
        s = seed()
        keys = dd.populate(self.rv, random.Random(s), KEYS)
        payloads = dumps(self.rv, keys)
        res = restore_all(self.rr, keys, payloads)
        self.assertEqual([x for x in res if x not in (True, b"OK")], [], f"seed {s}")
        self.compare(keys, s)
        # The same value, DUMPed by both: byte for byte (LZF included: both use liblzf 3.6's
        # algorithm), except hashtable-encoded sets and hashes, whose order is the table's.
        theirs = dumps(self.rr, keys)
        for k, (mine, _), (ref, _) in zip(keys, payloads, theirs):
            if mine[0] not in (2, 4):  # RDB_TYPE_SET / RDB_TYPE_HASH
                self.assertEqual(mine, ref, f"key {k!r} seed {s}")

    def test_restore_replace_absttl_missing(self):
        self.rv.set("a", "1")
        payload = self.rv.dump("a")
        self.assertIsNone(self.rv.dump("nokey"))
        for srv in (self.rr, self.rv):
            srv.set("a", "2")
        for args in (["a", 0, payload], ["a", -1, payload, "REPLACE"], ["a", "x", payload],
                     ["b", 0, payload, "IDLETIME", -1], ["b", 0, payload, "FREQ", 256],
                     ["b", 0, payload, "FREQ", 1, "IDLETIME", 3], ["b", 0, payload, "bogus"],
                     ["b", 0, b"abc"], ["b", 0, payload[:-1]], ["b", 0, payload, "IDLETIME"],
                     ["b", 0, payload, "ABSTTL", "REPLACE", "IDLETIME", 10],
                     ["c", 0, payload, "FREQ", 100], ["a", 0, payload, "REPLACE"]):
            got = [self._call(srv, "RESTORE", *args) for srv in (self.rv, self.rr)]
            self.assertEqual(got[0], got[1], args)
        self.assertEqual(self.rv.get("a"), b"1")
        # ABSTTL in the past: nothing is created; with REPLACE the old key is deleted.
        self.assertIn(self.rv.restore("d", 1, payload, absttl=True), (True, b"OK"))
        self.assertEqual(self.rv.exists("d"), 0)
        self.assertIn(self.rv.restore("a", 1, payload, replace=True, absttl=True), (True, b"OK"))
        self.assertEqual(self.rv.exists("a"), 0)
        self.assertIn(self.rv.restore("e", 10**13, payload, absttl=True), (True, b"OK"))
        self.assertEqual(self.rv.pexpiretime("e"), 10**13)
        self.assertIn(self.rv.restore("f", 5000, payload), (True, b"OK"))
        self.assertTrue(4000 < self.rv.pttl("f") <= 5000)

    def test_restore_idletime_and_freq_apply(self):
        # objectSetLRUOrLFU: IDLETIME sets the LRU clock back (LRU policies), FREQ the LFU
        # counter (LFU policies); OBJECT IDLETIME / FREQ read them back as redis-server does.
        self.rv.set("s", "v")
        payload = self.rv.dump("s")
        for srv in (self.rr, self.rv):
            srv.config_set("maxmemory-policy", "allkeys-lru")
            self.assertIn(srv.restore("i", 0, payload, idletime=100), (True, b"OK"))
            idle = srv.object("idletime", "i")
            self.assertTrue(100 <= idle <= 101, (srv, idle))
            srv.config_set("maxmemory-policy", "allkeys-lfu")
            self.assertIn(srv.restore("f", 0, payload, frequency=42), (True, b"OK"))
            self.assertEqual(srv.object("freq", "f"), 42)
            srv.config_set("maxmemory-policy", "noeviction")

    def test_restore_wakes_blocked_pop(self):
        self.rv.rpush("src", "a", "b")
        payload = self.rv.dump("src")
        got = []
        blocked = self.cand.client()
        t = threading.Thread(target=lambda: got.append(blocked.blpop("dst", timeout=5)))
        t.start()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not any(
                c.get("cmd") == "blpop" for c in self.rv.client_list()):
            time.sleep(0.01)
        self.assertIn(self.rv.restore("dst", 0, payload), (True, b"OK"))
        t.join(6)
        blocked.close()
        self.assertEqual(got, [(b"dst", b"a")])
        self.assertEqual(self.rv.lrange("dst", 0, -1), [b"b"])

    @staticmethod
    def _call(r, *args):
        try:
            return r.execute_command(*args)
        except Exception as e:  # noqa: BLE001 - the error text is what is compared
            return f"error: {e}"

    def test_corrupt_payloads(self):
        """Truncations, bad CRCs, bad lengths, a newer version, forged bodies with a right CRC:
        the same error as redis-server (with sanitize-dump-payload yes), never a crash."""
        rng = random.Random(7)
        keys = dd.populate(self.rr, rng, 60)
        bodies = [p[:-10] for p, _ in dumps(self.rr, keys)]
        cases = [b"", b"\x00" * 9, dd.with_footer(bodies[0], version=11)]
        for body in bodies:
            good = dd.with_footer(body)
            cases.append(good[:-1])
            cases.append(good[:-9] + bytes([good[-9] ^ 1]) + good[-8:])  # a wrong version/CRC
            for _ in range(3):
                cut = rng.randrange(1, len(body))
                cases.append(dd.with_footer(body[:cut]))  # truncated, CRC right
        cases += [dd.with_footer(b"\x00\x80\xff\xff\xff\xff"),           # length past the end
                  dd.with_footer(b"\x00\xc3\x05\x40\x00\x01\x02\x03\x04\x05"),  # LZF lies
                  dd.with_footer(b"\x02\x81" + b"\xff" * 8),                # 2^64-ish members
                  dd.with_footer(b"\x02\x00"),                              # empty set
                  dd.with_footer(b"\x02\x02\x01a\x01a"),                    # duplicate member
                  dd.with_footer(b"\x04\x01\x01a"),                         # hash, no value
                  dd.with_footer(b"\x05\x01\x01a" + b"\x00\x00\x00\x00\x00\x00\xf8\x7f"),  # nan
                  dd.with_footer(b"\x63\x00"),                              # unknown type
                  dd.with_footer(b"\x12\x01\x03\x00")]                      # bad container
        for i, payload in enumerate(cases):
            got = [self._call(srv, "RESTORE", f"bad{i}", 0, payload, "REPLACE")
                   for srv in (self.rv, self.rr)]
            self.assertEqual(got[0], got[1], f"case {i}: {payload!r}")
        self.assertEqual(self.rv.ping(), True)


class DumpDifferentialProxy(DumpDifferential):
    """The same through the proxy port of 2 workers (keys land on both)."""
    workers = 2

    def setUp(self):
        super().setUp()
        harness.wait_mesh_up(self.cand.port, 2)


if __name__ == "__main__":
    unittest.main()
