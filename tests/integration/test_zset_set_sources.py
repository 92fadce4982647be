"""ZUNION / ZINTER / ZDIFF (and their STORE forms, ZINTERCARD) take plain sets as sources,
each member scoring 1, as redis-server's zuiInitIterator/zuiFind do: sets of every encoding
(intset, listpack, hashtable) mixed with sorted sets, weights and aggregates, compared byte
for byte with a redis-server side by side, at 1 worker and through a 2-worker proxy port."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402
from itest import Raw  # noqa: E402

BIG = [f"m{i}" for i in range(200)]  # past set-max-listpack-entries: a hashtable set

SCRIPT = [
    ["SADD", "{t}ints", "1", "2", "3", "10"],
    ["SADD", "{t}strs", "a", "b", "c", "1"],
    ["SADD", "{t}big", *BIG, "a"],
    ["ZADD", "{t}z", "5", "a", "0.5", "1", "-2", "x", "7", "m3"],
    ["SET", "{t}str", "v"],
    ["ZUNION", "2", "{t}ints", "{t}z", "WITHSCORES"],
    ["ZUNION", "3", "{t}strs", "{t}z", "{t}ints", "WEIGHTS", "2", "3", "0.5", "WITHSCORES"],
    ["ZINTER", "2", "{t}strs", "{t}z", "WITHSCORES"],
    ["ZINTER", "2", "{t}z", "{t}strs", "AGGREGATE", "MAX", "WITHSCORES"],
    ["ZINTER", "2", "{t}big", "{t}z", "AGGREGATE", "MIN", "WITHSCORES"],
    ["ZINTER", "2", "{t}big", "{t}big", "WEIGHTS", "2", "3"],
    ["ZDIFF", "2", "{t}strs", "{t}z", "WITHSCORES"],
    ["ZDIFF", "2", "{t}z", "{t}strs", "WITHSCORES"],
    ["ZDIFF", "2", "{t}ints", "{t}missing", "WITHSCORES"],
    ["ZINTERCARD", "2", "{t}big", "{t}z"],
    ["ZINTERCARD", "2", "{t}big", "{t}strs", "LIMIT", "1"],
    ["ZUNIONSTORE", "{t}d1", "2", "{t}ints", "{t}strs"],
    ["ZRANGE", "{t}d1", "0", "-1", "WITHSCORES"],
    ["OBJECT", "ENCODING", "{t}d1"],
    ["ZINTERSTORE", "{t}d2", "2", "{t}big", "{t}z", "WEIGHTS", "1", "10"],
    ["ZRANGE", "{t}d2", "0", "-1", "WITHSCORES"],
    ["ZDIFFSTORE", "{t}d3", "2", "{t}big", "{t}strs"],
    ["ZCARD", "{t}d3"],
    ["OBJECT", "ENCODING", "{t}d3"],
    ["ZUNIONSTORE", "{t}ints", "2", "{t}ints", "{t}z"],
    ["TYPE", "{t}ints"],
    ["ZRANGE", "{t}ints", "0", "-1", "WITHSCORES"],
    ["ZUNION", "2", "{t}str", "{t}z"],
    ["ZINTER", "2", "{t}z", "{t}str"],
]


class SetSources(unittest.TestCase):
    workers = 1

    def test_set_sources_match_redis(self):
        with harness.Server(kind="redis") as ref, \
                harness.Server(kind="ruvio", args=["--workers", str(self.workers)]) as cand:
            if self.workers > 1:
                harness.wait_mesh_up(cand.port, self.workers)  # ready is not yet linked
            with Raw(ref.port) as a, Raw(cand.port) as b:
                for cmd in SCRIPT:
                    with self.subTest(cmd=cmd[:3]):
                        self.assertEqual(b.call(*cmd), a.call(*cmd))


class SetSourcesProxy(SetSources):
    workers = 2


if __name__ == "__main__":
    unittest.main()
