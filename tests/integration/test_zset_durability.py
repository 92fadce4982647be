"""Sorted sets survive SIGKILL: WAL replay (durability always) and snapshot + WAL (BGSAVE,
then more writes) restore every zset exactly — members, scores (0.1, -0, inf, 1e300),
order and OBJECT ENCODING — after writes of every kind (ZADD flags, ZINCRBY, ZREM, pops,
range deletes, ZRANGESTORE, ZUNIONSTORE/ZINTERSTORE/ZDIFFSTORE back to listpack)."""

import os
import shutil
import signal
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402


def wait_for(cond, timeout=10.0, step=0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(step)
    return False


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
class ZsetDurability(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ruvio-zdur-")
        self.dir = os.path.join(self.tmp, "data")
        self.servers = []

    def tearDown(self):
        for srv in self.servers:
            if srv.running():
                srv.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, mode):
        srv = harness.Server(kind="ruvio", args=["--dir", self.dir, "--durability", mode,
                                                 "--workers", "1", "--alloc-trace", "off"])
        self.servers.append(srv)
        return srv

    def crash(self, srv):
        self.assertTrue(wait_for(lambda: srv.worker_pids()), "no worker")
        os.kill(srv.worker_pids()[0], signal.SIGKILL)
        srv.stop(signal.SIGKILL)

    def test_wal_replay_after_sigkill(self):
        srv = self.start("always")
        r = srv.client()
        for round_ in range(3):
            workload(r, round_)
        want = snapshot_of(r)
        self.assertEqual(want["{z}big"][1], b"skiplist")
        self.assertEqual(want["{z}union"][1], b"listpack")
        self.assertEqual(want["{z}long"][1], b"skiplist")
        r.close()
        self.crash(srv)
        srv = self.start("everysec")
        r = srv.client()
        self.assertEqual(snapshot_of(r), want)
        r.close()

    def test_snapshot_then_wal_after_sigkill(self):
        srv = self.start("always")
        r = srv.client()
        workload(r, 0)
        self.assertTrue(r.bgsave())
        self.assertTrue(wait_for(lambda: r.info("persistence")["rdb_bgsave_in_progress"] == 0))
        self.assertEqual(r.info("persistence")["rdb_last_bgsave_status"], "ok")
        workload(r, 1)
        want = snapshot_of(r)
        r.close()
        self.crash(srv)
        srv = self.start("everysec")
        r = srv.client()
        self.assertEqual(snapshot_of(r), want)
        mem = r.memory_usage("{z}big")
        self.assertGreater(mem, 300 * 16)
        r.close()


if __name__ == "__main__":
    unittest.main()
