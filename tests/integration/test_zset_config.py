"""zset-max-listpack-entries / -value (and the zset-max-ziplist-* aliases): CONFIG SET moves
the conversion point exactly as on redis-server 7.0.15, and ZUNIONSTORE converts back only
when the result fits — replies and OBJECT ENCODING compared with a redis-server side by side."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402
import sidebyside  # noqa: E402

SCRIPT = [
    ["CONFIG", "SET", "zset-max-listpack-entries", "3"],
    ["CONFIG", "GET", "zset-max-listpack-entries"],
    ["ZADD", "z", "1", "a", "2", "b", "3", "c"],
    ["OBJECT", "ENCODING", "z"],
    ["ZADD", "z", "4", "d"],
    ["OBJECT", "ENCODING", "z"],
    ["ZREM", "z", "d", "c"],
    ["OBJECT", "ENCODING", "z"],
    ["ZUNIONSTORE", "u", "1", "z"],
    ["OBJECT", "ENCODING", "u"],
    ["ZADD", "w", "1", "a", "2", "b", "3", "c", "4", "d"],
    ["OBJECT", "ENCODING", "w"],
    ["ZRANGESTORE", "r", "w", "0", "1"],
    ["OBJECT", "ENCODING", "r"],
    ["CONFIG", "SET", "zset-max-ziplist-value", "4"],
    ["ZADD", "v", "1", "abcd"],
    ["OBJECT", "ENCODING", "v"],
    ["ZADD", "v", "1", "abcde"],
    ["OBJECT", "ENCODING", "v"],
    ["ZADD", "x", "1", "abcde"],
    ["OBJECT", "ENCODING", "x"],
    ["CONFIG", "SET", "zset-max-listpack-entries", "abc"],
    ["CONFIG", "SET", "zset-max-listpack-entries", "128"],
    ["CONFIG", "SET", "zset-max-listpack-value", "64"],
    ["ZUNIONSTORE", "u2", "1", "w"],
    ["OBJECT", "ENCODING", "u2"],
]


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class ZsetConfig(unittest.TestCase):
    def test_thresholds_follow_config_set_as_redis(self):
        with sidebyside.pair() as (ref, cand):
            a, b = ref.client(), cand.client()
            for cmd in SCRIPT:
                try:
                    want = a.execute_command(*cmd)
                except Exception as e:  # noqa: BLE001 — the error text is what is compared
                    want = ("error", str(e))
                try:
                    got = b.execute_command(*cmd)
                except Exception as e:  # noqa: BLE001
                    got = ("error", str(e))
                self.assertEqual(got, want, cmd)
            a.close()
            b.close()


if __name__ == "__main__":
    unittest.main()
