"""A client blocked on a key that is then deleted, flushed, swapped away or overwritten by
another type (issue 25, 1), against redis-server 7.0.15 and Ruvio (1 worker, and the proxy
port of 2 workers with keys of both owners), exact reply bytes.

Redis 7.0.15 (checked side by side): a blocked XREADGROUP is unblocked with
"-UNBLOCKED the stream key no longer exists" as soon as its key stops holding a stream (DEL,
UNLINK, SET over it, RESTORE REPLACE, FLUSHDB, FLUSHALL, SWAPDB with a db that has no stream
there, MOVE, RENAME away), and "-NOGROUP the consumer group this client was blocked on no
longer exists" after XGROUP DESTROY; a stream of the same group renamed over it keeps it
blocked. XREAD, the BLPOP family, the BZPOPMIN family and BLMOVE stay blocked when their key
becomes a string: they time out with their nil reply, and a later push of the right type
serves them."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import blocking_case  # noqa: E402
from blocking_case import BlockingServer, wait_for  # noqa: E402

KEYS = [b"bl:a", b"bl:b"]  # worker 0 and worker 1 at 2 workers

UNBLOCKED = b"-UNBLOCKED the stream key no longer exists\r\n"
NOGROUP = b"-NOGROUP the consumer group this client was blocked on no longer exists\r\n"


def xreadgroup(key, block="0"):
    return ("XREADGROUP", "GROUP", "g", "c", "BLOCK", block, "STREAMS", key, ">")


# The blocking commands that stay blocked on a string, each with timeout `t`, and what they
# answer when it passes (RESP2).
def stay_blocked(key, t):
    d = b"{" + key + b"}d"
    return [
        (("XREAD", "BLOCK", str(int(float(t) * 1000)), "STREAMS", key, "$"), b"*-1\r\n"),
        (("BLPOP", key, t), b"*-1\r\n"),
        (("BRPOP", key, t), b"*-1\r\n"),
        (("BLMPOP", t, "1", key, "LEFT"), b"*-1\r\n"),
        (("BLMOVE", key, d, "LEFT", "RIGHT", t), b"*-1\r\n"),
        (("BRPOPLPUSH", key, d, t), b"*-1\r\n"),
        (("BZPOPMIN", key, t), b"*-1\r\n"),
        (("BZPOPMAX", key, t), b"*-1\r\n"),
        (("BZMPOP", t, "1", key, "MIN"), b"*-1\r\n"),
    ]


class Cases(BlockingServer):
    def blocked_xreadgroup(self, key, *change, setup=()):
        """XREADGROUP BLOCK 0 on stream `key` (group g), then `change` from another
        client: the blocked client's reply bytes."""
        self.r.xgroup_create(key, "g", "$", mkstream=True)
        for s in setup:
            self.r.execute_command(*s)
        t, out = self.spawn_raw(*xreadgroup(key))
        self.assertTrue(wait_for(lambda: self.blocked() == 1))
        for c in change:
            self.r.execute_command(*c)
        t.join(3)
        self.assertFalse(t.is_alive(), change)
        self.assertEqual(self.blocked(), 0)
        return out["reply"]

    def test_xreadgroup_key_overwritten_by_set(self):
        for key in KEYS:
            self.r.flushall()
            self.assertEqual(self.blocked_xreadgroup(key, ("SET", key, "v")), UNBLOCKED)
            self.assertEqual(self.r.get(key), b"v")

    def test_xreadgroup_key_deleted_then_set(self):
        for key in KEYS:
            for change in ((("DEL", key), ("SET", key, "v")), (("UNLINK", key),),
                           (("DEL", key), ("RPUSH", key, "x"))):
                self.r.flushall()
                self.assertEqual(self.blocked_xreadgroup(key, *change), UNBLOCKED, change)

    def test_xreadgroup_key_restored_over(self):
        for key in KEYS:
            self.r.flushall()
            self.r.set(b"{" + key + b"}s", "1")
            dump = self.r.dump(b"{" + key + b"}s")
            self.assertEqual(
                self.blocked_xreadgroup(key, ("RESTORE", key, "0", dump, "REPLACE")), UNBLOCKED)

    def test_xreadgroup_db_flushed_or_swapped(self):
        for key in KEYS:
            for change in (("FLUSHDB",), ("FLUSHALL",), ("SWAPDB", "0", "1")):
                self.r.flushall()
                self.assertEqual(self.blocked_xreadgroup(key, change), UNBLOCKED, change)

    def test_xreadgroup_group_destroyed(self):
        for key in KEYS:
            self.r.flushall()
            self.assertEqual(self.blocked_xreadgroup(key, ("XGROUP", "DESTROY", key, "g")),
                             NOGROUP)

    def test_xreadgroup_stream_of_same_group_renamed_over_stays(self):
        key = KEYS[0]
        other = b"{" + key + b"}o"
        self.r.xgroup_create(other, "g", "$", mkstream=True)
        self.r.xgroup_create(key, "g", "$", mkstream=True)
        t, out = self.spawn_raw(*xreadgroup(key, "400"))
        self.assertTrue(wait_for(lambda: self.blocked() == 1))
        t0 = time.monotonic()
        self.r.rename(other, key)
        t.join(3)
        self.assertEqual(out["reply"], b"*-1\r\n")
        self.assertGreater(out["at"] - t0, 0.2)

    def test_others_stay_blocked_on_a_string_and_time_out(self):
        for key in KEYS:
            for cmd, nil in stay_blocked(key, "0.3"):
                self.r.flushall()
                if cmd[0] == "XREAD":
                    self.r.xadd(key, {"f": "v"})
                t, out = self.spawn_raw(*cmd)
                self.assertTrue(wait_for(lambda: self.blocked() == 1), cmd)
                self.r.delete(key)
                self.r.set(key, "v")
                t.join(3)
                self.assertEqual(out["reply"], nil, cmd)
                self.assertEqual(self.blocked(), 0, cmd)

    def test_blocked_through_a_string_then_served_by_a_push(self):
        for key in KEYS:
            self.r.flushall()
            t, out = self.spawn_raw("BLPOP", key, "0")
            self.assertTrue(wait_for(lambda: self.blocked() == 1))
            self.r.set(key, "v")
            time.sleep(0.05)
            self.assertEqual(self.blocked(), 1)
            self.r.delete(key)
            self.r.rpush(key, "x")
            t.join(3)
            self.assertEqual(out["reply"],
                             b"*2\r\n$4\r\n" + key + b"\r\n$1\r\nx\r\n")
            t, out = self.spawn_raw("BZPOPMIN", key, "0")
            self.assertTrue(wait_for(lambda: self.blocked() == 1))
            self.r.set(key, "v")
            self.r.delete(key)
            self.r.zadd(key, {"m": 1})
            t.join(3)
            self.assertEqual(out["reply"],
                             b"*3\r\n$4\r\n" + key + b"\r\n$1\r\nm\r\n$1\r\n1\r\n")


blocking_case.bind(Cases, globals(), KEYS)
