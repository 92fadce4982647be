"""Blocking stream reads (XREAD BLOCK, XREADGROUP BLOCK) on the blocking framework, against
redis-server 7.0.15, Ruvio at 1 worker and through the proxy port of 2 workers (keys of both
owners, so the wait and the XADD cross the mesh): timeout accuracy and reply shapes in RESP2
and RESP3, wake by XADD from another client, "$" resolved when the client blocked, several
readers (every XREAD reader served; XREADGROUP consumers served first-blocked first), NOACK,
the deleted-stream and destroyed-group errors, CLIENT UNBLOCK, no blocking inside MULTI."""

import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import blocking_case  # noqa: E402
from blocking_case import BlockingServer, wait_for  # noqa: E402
from itest import Raw  # noqa: E402

KEYS = [b"bl:a", b"bl:b", b"bl:c", b"bl:d"]  # both owners at 2 workers


def bulk(s):
    return b"$%d\r\n%s\r\n" % (len(s), s)


def entry(id_, *fv):
    return b"*2\r\n" + bulk(id_) + b"*%d\r\n" % len(fv) + b"".join(bulk(x) for x in fv)


def one_stream(key, *entries):
    return b"*1\r\n*2\r\n" + bulk(key) + b"*%d\r\n" % len(entries) + b"".join(entries)


class Base(BlockingServer):
    def setUp(self):
        super().setUp()
        # redis-py's parsers for the X commands reshape replies: compare them as sent.
        for name in [n for n in self.r.response_callbacks if n.upper().startswith("X")]:
            del self.r.response_callbacks[name]

    def test_timeouts(self):
        with Raw(self.srv.port) as c:
            for cmd, ms in ((["XREAD", "BLOCK", "200", "STREAMS", KEYS[0], "$"], 200),
                            (["XREAD", "COUNT", "3", "BLOCK", "100", "STREAMS", KEYS[0],
                              KEYS[1] if self.workers == 1 else KEYS[0], "0", "0"], 100)):
                t0 = time.monotonic()
                self.assertEqual(c.call(*cmd), b"*-1\r\n", cmd)
                took = time.monotonic() - t0
                self.assertTimedOut(took, ms / 1000, cmd)
            self.r.execute_command("XGROUP", "CREATE", KEYS[1], "g", "$", "MKSTREAM")
            t0 = time.monotonic()
            self.assertEqual(c.call("XREADGROUP", "GROUP", "g", "c", "BLOCK", "150", "STREAMS",
                                    KEYS[1], ">"), b"*-1\r\n")
            self.assertGreaterEqual(time.monotonic() - t0, 0.145)
            self.assertEqual(c.call("HELLO", "3")[:1], b"%")
            self.assertEqual(c.call("XREAD", "BLOCK", "50", "STREAMS", KEYS[0], "$"), b"_\r\n")
        # A consumer that only waited is not created (7.0).
        self.assertEqual(self.r.execute_command("XINFO", "CONSUMERS", KEYS[1], "g"), [])
        self.assertEqual(self.blocked(), 0)

    def test_wake_by_xadd_dollar_resolved_at_block_time(self):
        for key in KEYS[:2]:
            self.r.execute_command("XADD", key, "1-1", "old", "x")
            t, out = self.spawn_raw("XREAD", "BLOCK", "5000", "STREAMS", key, "$")
            self.assertTrue(wait_for(lambda: self.blocked() == 1))
            with Raw(self.srv.port) as w:  # another client, on whichever worker
                self.assertEqual(w.call("XADD", key, "2-1", "new", "y"), bulk(b"2-1"))
            t.join(5)
            self.assertEqual(out["reply"], one_stream(key, entry(b"2-1", b"new", b"y")))
        self.assertEqual(self.blocked(), 0)

    def test_every_xread_reader_is_served(self):
        key = KEYS[0]
        threads = []
        for i in range(3):
            threads.append(self.spawn_raw("XREAD", "BLOCK", "5000", "STREAMS", key, "0"))
            self.assertTrue(wait_for(lambda: self.blocked() == i + 1))
        self.r.execute_command("XADD", key, "5-0", "f", "v")
        for t, _ in threads:
            t.join(5)
        want = one_stream(key, entry(b"5-0", b"f", b"v"))
        self.assertEqual([out["reply"] for _, out in threads], [want] * 3)

    def test_group_consumers_fifo(self):
        for key in KEYS[:2]:
            self.r.execute_command("XGROUP", "CREATE", key, "g", "$", "MKSTREAM")
            threads = []
            for i in range(3):
                threads.append(self.spawn_raw("XREADGROUP", "GROUP", "g", "c%d" % i, "BLOCK",
                                              "5000", "STREAMS", key, ">"))
                self.assertTrue(wait_for(lambda: self.blocked() == i + 1))
            for i in range(3):
                self.r.execute_command("XADD", key, "%d-0" % (i + 1), "n", i)
                self.assertTrue(wait_for(lambda: threads[i][1].get("reply") is not None), i)
            for t, _ in threads:
                t.join(5)
            self.assertEqual([out["reply"] for _, out in threads],
                             [one_stream(key, entry(b"%d-0" % (i + 1), b"n", b"%d" % i))
                              for i in range(3)])
            pending = self.r.execute_command("XPENDING", key, "g")
            self.assertEqual(pending[0], 3)
            self.assertEqual(sorted(pending[3]), [[b"c0", b"1"], [b"c1", b"1"], [b"c2", b"1"]])
        self.assertEqual(self.blocked(), 0)

    def test_xreadgroup_block_noack(self):
        key = KEYS[1]
        self.r.execute_command("XGROUP", "CREATE", key, "g", "0", "MKSTREAM")
        t, out = self.spawn_raw("XREADGROUP", "GROUP", "g", "c", "COUNT", "10", "NOACK", "BLOCK",
                                "0", "STREAMS", key, ">")
        self.assertTrue(wait_for(lambda: self.blocked() == 1))
        self.r.execute_command("XADD", key, "7-7", "a", "1")
        t.join(5)
        self.assertEqual(out["reply"], one_stream(key, entry(b"7-7", b"a", b"1")))
        self.assertEqual(self.r.execute_command("XPENDING", key, "g")[0], 0)
        groups = self.r.execute_command("XINFO", "GROUPS", key)
        self.assertEqual(groups[0][7], b"7-7")  # last-delivered-id moved on

    def test_stream_deleted_and_group_destroyed(self):
        key = KEYS[2]
        self.r.execute_command("XGROUP", "CREATE", key, "g", "$", "MKSTREAM")
        t, out = self.spawn_raw("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", key,
                                ">")
        self.assertTrue(wait_for(lambda: self.blocked() == 1))
        self.r.delete(key)
        t.join(5)
        self.assertEqual(out["reply"], b"-UNBLOCKED the stream key no longer exists\r\n")
        self.r.execute_command("XGROUP", "CREATE", key, "g", "$", "MKSTREAM")
        t, out = self.spawn_raw("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", key,
                                ">")
        self.assertTrue(wait_for(lambda: self.blocked() == 1))
        self.assertEqual(self.r.execute_command("XGROUP", "DESTROY", key, "g"), 1)
        t.join(5)
        self.assertEqual(out["reply"], b"-NOGROUP the consumer group this client was blocked on "
                                       b"no longer exists\r\n")
        self.assertEqual(self.blocked(), 0)

    def test_client_unblock(self):
        for mode, want in (("TIMEOUT", b"*-1\r\n"),
                           ("ERROR", b"-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n")):
            with Raw(self.srv.port) as c:
                my_id = int(c.call("CLIENT", "ID")[1:-2])
                done = {}

                def run():
                    done["reply"] = c.call("XREAD", "BLOCK", "0", "STREAMS", KEYS[3], "$")

                t = threading.Thread(target=run, daemon=True)
                t.start()
                self.assertTrue(wait_for(lambda: self.blocked() == 1))
                self.assertEqual(self.r.execute_command("CLIENT", "UNBLOCK", my_id, mode), 1)
                t.join(5)
                self.assertEqual(done["reply"], want, mode)
        self.assertEqual(self.blocked(), 0)

    def test_not_inside_multi_and_served_at_once(self):
        self.r.execute_command("XADD", "{t}s", "1-0", "a", "b")
        with Raw(self.srv.port) as c:
            for cmd, want in ((["MULTI"], b"+OK\r\n"),
                              (["XREAD", "BLOCK", "0", "STREAMS", "{t}s", "$"], b"+QUEUED\r\n"),
                              (["XREAD", "BLOCK", "0", "STREAMS", "{t}s", "0"], b"+QUEUED\r\n"),
                              (["EXEC"], b"*2\r\n*-1\r\n" + one_stream(b"{t}s",
                                                                      entry(b"1-0", b"a", b"b")))):
                self.assertEqual(c.call(*cmd), want, cmd)
            self.assertEqual(c.call("XREAD", "BLOCK", "0", "STREAMS", "{t}s", "0-0"),
                             one_stream(b"{t}s", entry(b"1-0", b"a", b"b")))

    def test_bad_arguments(self):
        self.r.set("str", "x")
        with Raw(self.srv.port) as c:
            for cmd, want in (
                    (["XREAD", "BLOCK", "-1", "STREAMS", "k", "$"], b"-ERR timeout is negative\r\n"),
                    (["XREAD", "BLOCK", "1.5", "STREAMS", "k", "$"],
                     b"-ERR timeout is not an integer or out of range\r\n"),
                    (["XREAD", "BLOCK", "0", "STREAMS", "k", "+"],
                     b"-ERR Invalid stream ID specified as stream command argument\r\n"),
                    (["XREAD", "BLOCK", "0", "STREAMS", "str", "$"],
                     b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
                    (["XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "k", ">"],
                     b"-NOGROUP No such key 'k' or consumer group 'g' in XREADGROUP with GROUP "
                     b"option\r\n"),
                    (["XREAD", "BLOCK", "0", "STREAMS", "k", ">"],
                     b"-ERR The > ID can be specified only when calling XREADGROUP using the "
                     b"GROUP <group> <consumer> option.\r\n")):
                with self.subTest(cmd=cmd):
                    self.assertEqual(c.call(*cmd), want)
        self.assertEqual(self.blocked(), 0)


blocking_case.bind(Base, globals(), KEYS[:2])


if __name__ == "__main__":
    unittest.main()
