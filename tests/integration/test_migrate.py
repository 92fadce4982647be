"""MIGRATE with real redis-servers, Ruvio as the source side by side with a redis-server source
(same command, same target kind, same reply): single key, KEYS, COPY, REPLACE, BUSYKEY from
the target, NOKEY, AUTH and AUTH2 (good and bad), another database, TTLs carried, syntax and
argument errors, a closed port (IOERR); redis-server -> Ruvio; through a 2-worker proxy."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))
import dump_data as dd  # noqa: E402
import harness  # noqa: E402
import sidebyside  # noqa: E402


def call(r, *args):
    try:
        return r.execute_command(*args)
    except Exception as e:  # noqa: BLE001 - the error text is what is compared
        return f"error: {e}"


def fill(r):
    r.flushall()
    r.set("s", "v")
    r.rpush("l", "a", "b", 1)
    r.hset("h", mapping={"f": "v", "g": 2})
    r.zadd("z", {"a": 1.5})
    r.sadd("st", 1, 2)
    r.xadd("x", {"f": "v"}, id="1-1")
    r.set("t", "x", px=100000)


KEYS = ["s", "l", "h", "z", "st", "x", "t"]


class Migrate(sidebyside.SideBySideCase):
    """The sources are Ruvio (cand) and a redis-server (ref); the target is a third server."""
    ruvio_args = dd.ruvio_args()

    @classmethod
    def setUpClass(cls):
        cls.target = harness.Server(kind="redis", args=["--requirepass", "pw",
                                                              "--enable-debug-command", "yes"])
        # Stopped also when the rest of setUpClass fails (then tearDownClass never runs).
        cls.addClassCleanup(cls.target.stop)
        super().setUpClass()
        cls.t = cls.target.client(password="pw")
        cls.t.execute_command("ACL", "SETUSER", "mover", "on", ">pw2", "~*", "+@all")
        cls.src = [cls.cand.client(), cls.ref.client()]

    @classmethod
    def tearDownClass(cls):
        for c in [cls.t, *cls.src]:
            c.close()
        super().tearDownClass()
        cls.target.stop()

    def setUp(self):
        if self.workers > 1:
            harness.wait_mesh_up(self.cand.port, self.workers)

    def both(self, *args, prepare=None):
        """Runs MIGRATE args on each source against a fresh target; returns (replies, states)."""
        out = []
        for r in self.src:
            fill(r)
            self.t.flushall()
            if prepare:
                prepare()
            reply = call(r, "MIGRATE", "127.0.0.1", self.target.port, *args)
            state = ([r.exists(k) for k in KEYS],
                     [dd.read_key(self.t, k) for k in KEYS],
                     [self.t.execute_command("DEBUG", "DIGEST-VALUE", k) for k in KEYS]
                     if self.workers == 1 else None)
            out.append((reply, state))
        return out

    def check(self, *args, prepare=None):
        mine, ref = self.both(*args, prepare=prepare)
        self.assertEqual(mine, ref, args)
        return mine

    def test_single_keys_and_options(self):
        for k in KEYS:
            reply, _ = self.check(k, 0, 5000, "AUTH", "pw")
            self.assertEqual(reply, b"OK")
        self.check("s", 0, 5000, "COPY", "AUTH", "pw")
        self.check("s", 3, 5000, "AUTH", "pw")
        self.check("nokey", 0, 5000, "AUTH", "pw")
        self.check("", 0, 5000, "AUTH", "pw", "KEYS", "s", "nokey", "l", "x")
        self.check("", 0, 5000, "AUTH", "pw", "KEYS", "nokey", "nokey2")
        self.check("", 0, 5000, "COPY", "REPLACE", "AUTH2", "mover", "pw2", "KEYS", "h", "z")
        busy = lambda: self.t.set("s", "there")  # noqa: E731
        self.check("s", 0, 5000, "AUTH", "pw", prepare=busy)
        self.check("", 0, 5000, "AUTH", "pw", "KEYS", "l", "s", "h", prepare=busy)
        self.check("s", 0, 5000, "REPLACE", "AUTH", "pw", prepare=busy)

    def test_errors(self):
        for args in (("s", 0, 5000), ("s", 0, 5000, "AUTH", "bad"),
                     ("s", 0, 5000, "AUTH2", "mover", "bad"), ("s", 0, 5000, "AUTH"),
                     ("s", 0, 5000, "AUTH2", "x"), ("s", 0, 5000, "bogus"),
                     ("s", 0, 5000, "KEYS", "s"), ("s", "x", 5000), ("s", 0, "x"),
                     ("s", 99, 5000, "AUTH", "pw"), ("nokey", "x", "y")):
            self.check(*args)

    def test_closed_port(self):
        port = harness.free_port()
        for r in self.src:
            fill(r)
        replies = [call(r, "MIGRATE", "127.0.0.1", port, "s", 0, 500) for r in self.src]
        self.assertEqual(replies[0], replies[1])
        self.assertEqual(self.src[0].exists("s"), 1)

    def test_redis_to_ruvio(self):
        r = self.src[1]
        fill(r)
        self.src[0].flushall()
        self.assertEqual(call(r, "MIGRATE", "127.0.0.1", self.cand.port, "", 0, 5000, "KEYS",
                              *KEYS), b"OK")
        self.assertEqual(self.src[0].dbsize(), len(KEYS))
        self.assertEqual(self.src[0].lrange("l", 0, -1), [b"a", b"b", b"1"])
        self.assertEqual(self.src[0].xrange("x"), [(b"1-1", {b"f": b"v"})])


class MigrateProxy(Migrate):
    """Single keys through the proxy port of 2 workers (each key runs on its owner)."""
    workers = 2

    def test_single_keys_and_options(self):
        for k in KEYS:
            reply, _ = self.check(k, 0, 5000, "AUTH", "pw")
            self.assertEqual(reply, b"OK")
        self.check("s", 0, 5000, "COPY", "AUTH", "pw")

    def test_errors(self):
        self.check("s", 0, 5000, "AUTH", "bad")

    def test_redis_to_ruvio(self):
        """A redis-server MIGRATEs into the proxy port: its SELECT and pipelined RESTOREs go
        each to the key's owner (the keys live on both workers), values and TTL carried."""
        r, ruvio = self.src[1], self.src[0]
        self.assertEqual({harness.key_owner(k) for k in KEYS}, {0, 1})
        fill(r)
        want = [dd.read_key(r, k) for k in KEYS]
        ruvio.flushall()
        self.assertEqual(call(r, "MIGRATE", "127.0.0.1", self.cand.port, "", 0, 5000, "KEYS",
                              *KEYS), b"OK")
        self.assertEqual(r.dbsize(), 0)
        self.assertEqual(ruvio.dbsize(), len(KEYS))
        self.assertEqual([dd.read_key(ruvio, k) for k in KEYS], want)
        self.assertTrue(95000 < ruvio.pttl("t") <= 100000, ruvio.pttl("t"))
        self.assertEqual([ruvio.ttl(k) for k in KEYS if k != "t"], [-1] * (len(KEYS) - 1))
        # One key at a time, COPY and REPLACE over what is there, BUSYKEY otherwise.
        fill(r)
        self.assertEqual(call(r, "MIGRATE", "127.0.0.1", self.cand.port, "s", 0, 5000),
                         "error: Target instance replied with error: BUSYKEY Target key name "
                         "already exists.")
        r.set("s", "new")
        self.assertEqual(call(r, "MIGRATE", "127.0.0.1", self.cand.port, "s", 0, 5000, "COPY",
                              "REPLACE"), b"OK")
        self.assertEqual((r.get("s"), ruvio.get("s")), (b"new", b"new"))


if __name__ == "__main__":
    unittest.main()
