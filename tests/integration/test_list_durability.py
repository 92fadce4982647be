"""Lists survive SIGKILL: a seeded stream of list writes (pushes of members up to 9 KB so the
lists span many quicklist nodes, pops with counts, LSET, LINSERT, LREM, LTRIM, LMOVE,
RPOPLPUSH, LMPOP, the blocking forms, DEL, EXPIRE) goes to Ruvio and to a redis-server; Ruvio is killed with
SIGKILL (WAL alone, then snapshot + WAL) and restarted on its data dir, and every list must
read back exactly as on redis-server, TTLs included. ListDurabilityCompressed runs the same with
list-compress-depth 1 on both servers (inner nodes LZF-compressed; the snapshot stores them
plain with the depth, the load compresses them again)."""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402
from durability_case import CrashCase  # noqa: E402

KEYS = [f"list:{i}" for i in range(6)]


def member(r):
    x = r.random()
    if x < 0.5:
        return r.choice(["a", "b", "c", "1", "-7", "007", "9223372036854775807", ""])
    if x < 0.8:
        return str(r.randint(-10**6, 10**6))
    if x < 0.98:
        return "m" * r.randint(60, 400)
    return "H" * r.randint(8000, 9000)


def ops(seed, n):
    r = random.Random(seed)
    for _ in range(n):
        k, k2 = r.choice(KEYS), r.choice(KEYS)
        x = r.random()
        if x < 0.35:
            yield [r.choice(["LPUSH", "RPUSH"]), k] + [member(r) for _ in range(r.randint(1, 40))]
        elif x < 0.45:
            yield [r.choice(["LPOP", "RPOP"]), k, str(r.randint(1, 30))]
        elif x < 0.5:
            yield ["LSET", k, str(r.randint(-20, 20)), member(r)]
        elif x < 0.58:
            yield ["LINSERT", k, r.choice(["BEFORE", "AFTER"]), member(r), member(r)]
        elif x < 0.64:
            yield ["LREM", k, str(r.randint(-2, 2)), member(r)]
        elif x < 0.68:
            yield ["LTRIM", k, str(r.randint(0, 5)), str(r.randint(-30, 200))]
        elif x < 0.8:
            yield ["LMOVE", k, k2, r.choice(["LEFT", "RIGHT"]), r.choice(["LEFT", "RIGHT"])]
        elif x < 0.86:
            yield ["RPOPLPUSH", k, k2]
        elif x < 0.93:
            yield ["LMPOP", "2", k, k2, r.choice(["LEFT", "RIGHT"]), "COUNT", str(r.randint(1, 9))]
        elif x < 0.95:
            yield ["EXPIRE", k, str(r.randint(5000, 9000))]
        elif x < 0.96:
            # Logged as their effect (LPOP/RPOP/LMOVE); an empty source just times out.
            yield r.choice([["BLPOP", k, k2, "0.01"], ["BRPOP", k, "0.01"],
                            ["BLMOVE", k, k2, "RIGHT", "LEFT", "0.01"],
                            ["BLMPOP", "0.01", "1", k, "LEFT", "COUNT", "3"]])
        else:
            yield ["DEL", k]


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class ListDurability(CrashCase, unittest.TestCase):
    prefix = "ruvio-list-dur-"
    DEPTH = 0  # list-compress-depth of both servers

    @property
    def args(self):
        return ["--list-compress-depth", str(self.DEPTH)] if self.DEPTH else []

    def start_redis(self):
        srv = harness.Server(kind="redis", args=self.args)
        self.servers.append(srv)
        return srv

    def send(self, ruvio, redis, seed, n):
        for cmd in ops(seed, n):
            want = got = None
            try:
                want = redis.execute_command(*cmd)
            except Exception as e:  # noqa: BLE001 — an error reply: both must give it
                want = ("error", str(e))
            try:
                got = ruvio.execute_command(*cmd)
            except Exception as e:  # noqa: BLE001
                got = ("error", str(e))
            self.assertEqual(got, want, cmd[:4])

    def assert_same(self, ruvio, redis):
        for k in KEYS:
            self.assertEqual(ruvio.lrange(k, 0, -1), redis.lrange(k, 0, -1), k)
            self.assertEqual(ruvio.type(k), redis.type(k), k)
            t1, t2 = ruvio.ttl(k), redis.ttl(k)
            self.assertTrue(abs(t1 - t2) <= 2, (k, t1, t2))

    def test_lists_survive_sigkill_from_wal_and_snapshot(self):
        seed = int(os.environ.get("RUVIO_SEED", random.SystemRandom().randrange(1, 2**31)))
        print(f"\nlist durability seed={seed}", file=sys.stderr)
        ref = self.start_redis()
        rr = ref.client()
        srv = self.start()
        r = srv.client()
        self.send(r, rr, seed, 1500)
        r.close()
        self.crash(srv)
        # 1: the WAL alone.
        srv = self.start()
        r = srv.client()
        self.assert_same(r, rr)
        self.assertGreater(sum(rr.llen(k) for k in KEYS), 0)
        # 2: a snapshot, more writes, then a kill: snapshot + WAL.
        self.bgsave(r)
        self.send(r, rr, seed + 1, 800)
        r.close()
        self.crash(srv)
        srv = self.start()
        r = srv.client()
        self.assert_same(r, rr)
        self.assertRegex(srv.output(), r"snapshot: [1-9][0-9]* keys")  # lists from the snapshot
        self.assertEqual(r.object("encoding", KEYS[0]) if r.exists(KEYS[0]) else None,
                         b"quicklist" if rr.exists(KEYS[0]) else None)
        r.close()
        rr.close()


class ListDurabilityCompressed(ListDurability):
    DEPTH = 1


if __name__ == "__main__":
    unittest.main()
