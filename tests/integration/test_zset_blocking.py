"""Blocking sorted-set commands (BZPOPMIN BZPOPMAX BZMPOP) on the list family's blocking
framework, against redis-server 7.0.15, Ruvio at 1 worker and through the proxy port of 2
workers: fractional timeouts, FIFO wake order across clients, wake by ZADD (at 2 workers
keys of both owners, so the wait and the push cross the mesh), wake after EXEC, no blocking
inside MULTI, CLIENT UNBLOCK, exact reply shapes in RESP2 and RESP3, bad arguments."""

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


class Base(BlockingServer):
    def test_timeouts(self):
        with Raw(self.srv.port) as c:
            for cmd in (["BZPOPMIN", KEYS[0], "0.2"], ["BZPOPMAX", "{y}1", "{y}2", "0.15"],
                        ["BZMPOP", "0.1", "1", KEYS[0], "MIN"]):
                t0 = time.monotonic()
                self.assertEqual(c.call(*cmd), b"*-1\r\n", cmd)
                took = time.monotonic() - t0
                timeout = float(cmd[-1] if cmd[0] != "BZMPOP" else cmd[1])
                self.assertTimedOut(took, timeout, cmd)
            self.assertEqual(c.call("HELLO", "3")[:1], b"%")
            self.assertEqual(c.call("BZPOPMIN", KEYS[0], "0.05"), b"_\r\n")
        self.assertEqual(self.blocked(), 0)

    def test_replies_when_data_is_there(self):
        self.r.zadd(KEYS[0], {"a": 1, "b": 2.5, "c": 3})
        self.r.zadd("{r}a", {"a": 1})
        with Raw(self.srv.port) as c:
            self.assertEqual(c.call("BZPOPMIN", "{r}b", "{r}a", "0"),
                             b"*3\r\n$4\r\n{r}a\r\n$1\r\na\r\n$1\r\n1\r\n")
            self.assertEqual(c.call("BZPOPMAX", KEYS[0], "0"),
                             b"*3\r\n$4\r\nbl:a\r\n$1\r\nc\r\n$1\r\n3\r\n")
            self.assertEqual(c.call("BZMPOP", "0", "1", KEYS[0], "MAX", "COUNT", "5"),
                             b"*2\r\n$4\r\nbl:a\r\n*2\r\n*2\r\n$1\r\nb\r\n$3\r\n2.5\r\n"
                             b"*2\r\n$1\r\na\r\n$1\r\n1\r\n")
            self.r.zadd(KEYS[0], {"x": -1})
            self.assertEqual(c.call("HELLO", "3")[:1], b"%")
            self.assertEqual(c.call("BZPOPMIN", KEYS[0], "0"),
                             b"*3\r\n$4\r\nbl:a\r\n$1\r\nx\r\n,-1\r\n")
        self.assertEqual(self.r.exists(KEYS[0]), 0)

    def test_fifo_across_clients_and_wake_by_zadd(self):
        for key in KEYS[:2]:
            threads = []
            for i in range(3):
                threads.append(self.spawn_raw("BZPOPMIN", key, "5"))
                self.assertTrue(wait_for(lambda: self.blocked() == i + 1))
            self.r.zadd(key, {"m1": 1, "m2": 2, "m3": 3})
            for t, _ in threads:
                t.join(5)
            k = b"$4\r\n" + key + b"\r\n"
            self.assertEqual([out["reply"] for _, out in threads],
                             [b"*3\r\n" + k + b"$2\r\nm1\r\n$1\r\n1\r\n",
                              b"*3\r\n" + k + b"$2\r\nm2\r\n$1\r\n2\r\n",
                              b"*3\r\n" + k + b"$2\r\nm3\r\n$1\r\n3\r\n"])
            self.assertEqual(self.r.exists(key), 0)
        self.assertEqual(self.blocked(), 0)

    def test_bzmpop_served_from_first_nonempty_key(self):
        t, out = self.spawn_raw("BZMPOP", "5", "2", "{x}1", "{x}2", "MAX", "COUNT", "2")
        self.assertTrue(wait_for(lambda: self.blocked() == 1))
        self.r.zadd("{x}2", {"a": 1, "b": 2, "c": 3})
        t.join(5)
        self.assertEqual(out["reply"], b"*2\r\n$4\r\n{x}2\r\n*2\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n"
                                       b"*2\r\n$1\r\nb\r\n$1\r\n2\r\n")
        self.assertEqual(self.r.zrange("{x}2", 0, -1), [b"a"])

    def test_wake_after_exec_and_not_inside_multi(self):
        t, out = self.spawn_raw("BZPOPMAX", KEYS[2], "5")
        self.assertTrue(wait_for(lambda: self.blocked() == 1))
        p = self.r.pipeline(transaction=True)
        p.zadd(KEYS[2], {"a": 1})
        p.zadd(KEYS[2], {"b": 2})
        p.zcard(KEYS[2])
        self.assertEqual(p.execute(), [1, 1, 2])
        t.join(5)
        self.assertEqual(out["reply"], b"*3\r\n$4\r\nbl:c\r\n$1\r\nb\r\n$1\r\n2\r\n")
        with Raw(self.srv.port) as c:
            for cmd, want in ((["MULTI"], b"+OK\r\n"), (["BZPOPMIN", "{t}z", "0"], b"+QUEUED\r\n"),
                              (["BZMPOP", "0", "1", "{t}z", "MIN"], b"+QUEUED\r\n"),
                              (["ZADD", "{t}z", "1", "v"], b"+QUEUED\r\n"),
                              (["BZPOPMIN", "{t}z", "0"], b"+QUEUED\r\n"),
                              (["EXEC"], b"*4\r\n*-1\r\n*-1\r\n:1\r\n*3\r\n$4\r\n{t}z\r\n$1\r\nv\r\n"
                                         b"$1\r\n1\r\n")):
                self.assertEqual(c.call(*cmd), want, cmd)

    def test_client_unblock(self):
        with Raw(self.srv.port) as c:
            my_id = int(c.call("CLIENT", "ID")[1:-2])
            done = {}

            def run():
                done["reply"] = c.call("BZPOPMIN", KEYS[3], "0")

            t = threading.Thread(target=run, daemon=True)
            t.start()
            self.assertTrue(wait_for(lambda: self.blocked() == 1))
            self.assertEqual(self.r.execute_command("CLIENT", "UNBLOCK", my_id, "ERROR"), 1)
            t.join(5)
            self.assertEqual(done["reply"], b"-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n")
        self.assertEqual(self.blocked(), 0)

    def test_bad_arguments(self):
        self.r.set("str", "x")
        with Raw(self.srv.port) as c:
            for cmd in (["BZPOPMIN", "k", "-1"], ["BZPOPMIN", "k", "abc"],
                        ["BZPOPMAX", "k", "nan"], ["BZPOPMIN", "str", "0"],
                        ["BZMPOP", "0", "1", "k", "UP"], ["BZMPOP", "0", "0", "k", "MIN"],
                        ["BZMPOP", "0", "1", "k", "MIN", "COUNT", "0"],
                        ["BZMPOP", "-1", "1", "k", "MIN"], ["BZMPOP", "x", "1", "k", "MIN"],
                        ["BZMPOP", "0", "5", "k", "MIN"], ["BZMPOP", "0", "1", "str", "MIN"],
                        ["BZPOPMIN", "k"], ["BZMPOP", "0", "1", "k"]):
                with self.subTest(cmd=cmd):
                    self.assertEqual(c.call(*cmd), EXPECTED[tuple(cmd)])
        self.assertEqual(self.blocked(), 0)


WT = b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
EXPECTED = {
    ("BZPOPMIN", "k", "-1"): b"-ERR timeout is negative\r\n",
    ("BZPOPMIN", "k", "abc"): b"-ERR timeout is not a float or out of range\r\n",
    ("BZPOPMAX", "k", "nan"): b"-ERR timeout is not a float or out of range\r\n",
    ("BZPOPMIN", "str", "0"): WT,
    ("BZMPOP", "0", "1", "k", "UP"): b"-ERR syntax error\r\n",
    ("BZMPOP", "0", "0", "k", "MIN"): b"-ERR numkeys should be greater than 0\r\n",
    ("BZMPOP", "0", "1", "k", "MIN", "COUNT", "0"): b"-ERR count should be greater than 0\r\n",
    ("BZMPOP", "-1", "1", "k", "MIN"): b"-ERR timeout is negative\r\n",
    ("BZMPOP", "x", "1", "k", "MIN"): b"-ERR timeout is not a float or out of range\r\n",
    ("BZMPOP", "0", "5", "k", "MIN"): b"-ERR syntax error\r\n",
    ("BZMPOP", "0", "1", "str", "MIN"): WT,
    ("BZPOPMIN", "k"): b"-ERR wrong number of arguments for 'bzpopmin' command\r\n",
    ("BZMPOP", "0", "1", "k"): b"-ERR wrong number of arguments for 'bzmpop' command\r\n",
}


blocking_case.bind(Base, globals(), KEYS[:2])


if __name__ == "__main__":
    unittest.main()
