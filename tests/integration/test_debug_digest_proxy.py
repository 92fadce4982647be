"""DEBUG DIGEST through a 2-worker proxy port beside redis-server: Redis's dataset digest is,
per non-empty database, a mix of its number then an xor of every key's digest, so the
workers' parts combine into the digest one redis-server has for the same data. Random keys
of every type (seed printed, RUVIO_DIFF_SEED replays) in two databases, then after a
FLUSHDB of one and a FLUSHALL (all zeros).

DEBUG DIGEST-VALUE key [key ...] through the proxy: the keys are split by owner and the
digests come back in argument order, each as the owner's redis-server twin has it, for
dump_data.populate's keys of every type and encoding (its zsets with -0 scores once digested
differently: Ruvio converted a listpack before a long ZADD, redis-server 7.0 member by
member), asked in shuffled runs with missing keys among them. DEBUG OBJECT, LISTPACK and
QUICKLIST of a key are answered by its owner."""

import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))
import dump_data as dd  # noqa: E402  (the thresholds both servers run with)
import harness  # noqa: E402
import sidebyside  # noqa: E402


def populate(r, rng, count):
    p = r.pipeline(transaction=False)
    for i in range(count):
        word = lambda: rng.choice(["a", "b", "x" * rng.randrange(1, 80), str(rng.randrange(-9, 10**6))])
        kind = i % 6
        k = f"d:{i}:{kind}"
        if kind == 0:
            p.set(k, word())
        elif kind == 1:
            p.rpush(k, *[word() for _ in range(rng.randrange(1, 20))])
        elif kind == 2:
            p.sadd(k, *[word() for _ in range(rng.randrange(1, 20))])
        elif kind == 3:
            p.zadd(k, {word(): rng.randrange(-100, 100) / 4 for _ in range(rng.randrange(1, 20))})
        elif kind == 4:
            p.hset(k, mapping={word(): word() for _ in range(rng.randrange(1, 20))})
        else:
            for j in range(rng.randrange(1, 5)):
                p.xadd(k, {word(): word()}, id=f"{j + 1}-0")
        if rng.random() < 0.2:
            p.expire(k, 100000)
    p.execute()


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class DigestThroughProxy(unittest.TestCase):
    def test_digest_of_both_workers_is_redis_digest(self):
        seed = int(os.environ.get("RUVIO_DIFF_SEED", random.randrange(1 << 30)))
        print(f"seed {seed} (RUVIO_DIFF_SEED={seed} replays)")
        with sidebyside.pair(2, dd.redis_args(), dd.ruvio_args()) as (redis, ruvio):
            servers = (redis, ruvio)
            for srv in servers:
                for db, count in ((0, 300), (2, 40)):
                    c = srv.client(db=db)
                    populate(c, random.Random(seed + db), count)
                    c.close()
            a, b = (s.client() for s in servers)

            def both(*cmd):
                x, y = a.execute_command(*cmd), b.execute_command(*cmd)
                self.assertEqual(y, x, (seed, cmd))
                return x

            # The keys really live on both workers, and the sets are the same.
            self.assertEqual(both("DBSIZE"), 300)
            self.assertEqual(sorted(a.keys("*")), sorted(b.keys("*")))
            digest = both("DEBUG", "DIGEST")
            self.assertNotEqual(digest, b"0" * 40)
            c2 = [s.client(db=2) for s in servers]
            for c in c2:
                c.flushdb()
                c.close()
            self.assertNotEqual(both("DEBUG", "DIGEST"), digest)
            both("FLUSHALL")
            self.assertEqual(both("DEBUG", "DIGEST"), b"0" * 40)
            a.close()
            b.close()

    def test_digest_value_split_by_owner(self):
        seed = int(os.environ.get("RUVIO_DIFF_SEED", random.randrange(1 << 30)))
        print(f"seed {seed} (RUVIO_DIFF_SEED={seed} replays)")
        with sidebyside.pair(2, dd.redis_args(), dd.ruvio_args()) as (redis, ruvio):
            a, b = redis.client(), ruvio.client()
            keys = dd.populate(a, random.Random(seed), 400)
            dd.populate(b, random.Random(seed), 400)
            self.assertEqual({harness.key_owner(k) for k in keys}, {0, 1})
            self.assertEqual(b.execute_command("DEBUG", "DIGEST"),
                             a.execute_command("DEBUG", "DIGEST"), seed)
            rng = random.Random(seed)
            asked = keys + [b"missing:1", b"missing:2"]
            rng.shuffle(asked)
            at = 0
            while at < len(asked):
                run = asked[at:at + rng.randrange(1, 30)]
                at += len(run)
                self.assertEqual(b.execute_command("DEBUG", "DIGEST-VALUE", *run),
                                 a.execute_command("DEBUG", "DIGEST-VALUE", *run), (seed, run))
            for args in (["DEBUG", "DIGEST-VALUE"], ["DEBUG", "DIGEST-VALUE", keys[0], keys[0]]):
                self.assertEqual(b.execute_command(*args), a.execute_command(*args), args)
            # DEBUG OBJECT / LISTPACK / QUICKLIST key: the key's owner answers.
            for k in keys[:40]:
                enc = b.object("encoding", k)  # Ruvio's own (its small sets: listpack)
                self.assertIn(b" encoding:" + enc + b" ", b.execute_command("DEBUG", "OBJECT", k))
                if enc != a.object("encoding", k):
                    continue  # a small set of strings: a hashtable in 7.0
                for sub in ("LISTPACK", "QUICKLIST"):
                    x = y = None
                    try:
                        x = a.execute_command("DEBUG", sub, k)
                    except Exception as e:  # noqa: BLE001 (the error text is compared)
                        x = str(e)
                    try:
                        y = b.execute_command("DEBUG", sub, k)
                    except Exception as e:  # noqa: BLE001
                        y = str(e)
                    self.assertEqual(y, x, (k, sub))
            a.close()
            b.close()


if __name__ == "__main__":
    unittest.main()
