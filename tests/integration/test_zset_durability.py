"""Sorted sets survive SIGKILL: WAL replay (durability always) and snapshot + WAL (BGSAVE,
then more writes) restore every zset exactly — members, scores (0.1, -0, inf, 1e300),
order and OBJECT ENCODING — after writes of every kind (ZADD flags, ZINCRBY, ZREM, pops,
range deletes, ZRANGESTORE, ZUNIONSTORE/ZINTERSTORE/ZDIFFSTORE back to listpack)."""

import unittest

from durability_case import KillRecovery, harness

KEYS = ["{z}small", "{z}big", "{z}store", "{z}union", "{z}inter", "{z}diff", "{z}popped",
        "{z}long"]


def workload(r, round_):
    r.zadd("{z}small", {"a": 0.1, "b": -0.0, "c": float("inf"), "d": 1e300, "7": 7})
    r.zadd("{z}small", {"a": 2}, xx=True, ch=True)
    r.zadd("{z}small", {"b": -5}, gt=True)
    r.zincrby("{z}small", 1.5, "e")
    r.zadd("{z}big", {f"m{round_}:{i}": i % 17 for i in range(300)})
    r.zrem("{z}big", f"m{round_}:3", f"m{round_}:4")
    r.zremrangebyscore("{z}big", 15, "+inf")
    r.zremrangebyrank("{z}big", 0, 2)
    r.zadd("{z}popped", {f"p{i}": i for i in range(20)})
    r.zpopmin("{z}popped", 3)
    r.zpopmax("{z}popped")
    r.execute_command("ZMPOP", 2, "{z}nothing", "{z}popped", "MIN", "COUNT", 2)
    r.zrangestore("{z}store", "{z}big", 0, 150)
    r.zunionstore("{z}union", {"{z}small": 2, "{z}popped": 1}, aggregate="MAX")
    r.zinterstore("{z}inter", ["{z}big", "{z}store"])
    r.zdiffstore("{z}diff", ["{z}big", "{z}store"])
    r.zadd("{z}long", {"x" * 100: 1, "y": 2})
    r.zrem("{z}long", "x" * 100)


def snapshot_of(r):
    return {k: (r.zrange(k, 0, -1, withscores=True), r.object("encoding", k)) for k in KEYS}


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class ZsetDurability(KillRecovery, unittest.TestCase):
    prefix = "ruvio-zdur-"

    def workload(self, r, round_):
        workload(r, round_)

    def snapshot_of(self, r):
        return snapshot_of(r)

    def check_wal(self, want, r):
        self.assertEqual(want["{z}big"][1], b"skiplist")
        self.assertEqual(want["{z}union"][1], b"listpack")
        self.assertEqual(want["{z}long"][1], b"skiplist")

    def check_recovered(self, want, r):
        self.assertGreater(r.memory_usage("{z}big"), 300 * 16)


if __name__ == "__main__":
    unittest.main()
