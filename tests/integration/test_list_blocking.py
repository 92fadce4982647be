"""Blocking list commands (BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP) against Ruvio at 1 worker
and through the proxy port of 2 workers, each compared with what redis-server 7.0.15
answers: timeouts (fractional, within 100 ms), FIFO order of several blocked clients, wake-up
by a push from another client (at 2 workers, keys of both owners, so pushes and parked
commands cross the mesh), BLMOVE into a list another client waits on, disconnect while
blocked, blocking commands inside MULTI (they do not block), bad timeouts, INFO
blocked_clients."""

import os
import socket
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import blocking_case  # noqa: E402
from blocking_case import BlockingServer, wait_for  # noqa: E402

# Keys of both owners at 2 workers (worker 0: slots 0-8191).
KEYS = [b"bl:a", b"bl:b", b"bl:c", b"bl:d", b"bl:e", b"bl:f"]


def norm(reply):
    """redis-py answers BLPOP/BRPOP with a tuple: compare as lists."""
    return list(reply) if isinstance(reply, tuple) else reply


class Base(BlockingServer):
    def spawn(self, fn, *args):
        out = {}

        def run():
            c = self.srv.client()
            try:
                out["reply"] = fn(c, *args)
            except Exception as e:  # noqa: BLE001 — the error is the reply under test
                out["error"] = str(e)
            out["at"] = time.monotonic()
            c.close()

        t = threading.Thread(target=run, daemon=True)
        t.start()
        return t, out

    def test_timeout_fractional_and_accurate(self):
        for cmd, want in ((["BLPOP", KEYS[0], "0.2"], None),
                          (["BRPOP", KEYS[0], KEYS[0], "0.15"], None),
                          (["BLMOVE", "{t}a", "{t}b", "LEFT", "RIGHT", "0.1"], None),
                          (["BRPOPLPUSH", "{t}a", "{t}b", "0.1"], None),
                          (["BLMPOP", "0.1", "1", KEYS[0], "LEFT"], None)):
            t0 = time.monotonic()
            self.assertEqual(self.r.execute_command(*cmd), want)
            took = time.monotonic() - t0
            timeout = float(cmd[-1] if cmd[0] != "BLMPOP" else cmd[1])
            self.assertTimedOut(took, timeout, cmd)
        self.assertEqual(self.blocked(), 0)

    def test_fifo_across_clients_and_wake_by_push(self):
        for key in KEYS[:2]:
            threads = []
            for i in range(3):
                threads.append(self.spawn(lambda c: c.execute_command("BLPOP", key, "5")))
                self.assertTrue(wait_for(lambda: self.blocked() == i + 1))
            self.r.rpush(key, "one", "two", "three")
            for t, _ in threads:
                t.join(5)
            self.assertEqual([norm(out["reply"]) for _, out in threads],
                             [[key, b"one"], [key, b"two"], [key, b"three"]])
            self.assertEqual(self.r.exists(key), 0)
        self.assertEqual(self.blocked(), 0)

    def test_served_from_first_nonempty_key_and_blmpop(self):
        t, out = self.spawn(lambda c: c.execute_command("BLMPOP", "5", "2", "{x}1", "{x}2",
                                                        "RIGHT", "COUNT", "2"))
        self.assertTrue(wait_for(lambda: self.blocked() == 1))
        self.r.rpush("{x}2", "a", "b", "c")
        t.join(5)
        self.assertEqual(out["reply"], [b"{x}2", [b"c", b"b"]])
        self.assertEqual(self.r.lrange("{x}2", 0, -1), [b"a"])

    def test_blmove_into_a_list_another_client_waits_on(self):
        src, dst = b"{m}src", b"{m}dst"
        t1, o1 = self.spawn(lambda c: c.execute_command("BLPOP", dst, "5"))
        self.assertTrue(wait_for(lambda: self.blocked() == 1))
        t2, o2 = self.spawn(lambda c: c.execute_command("BLMOVE", src, dst, "RIGHT", "LEFT", "5"))
        self.assertTrue(wait_for(lambda: self.blocked() == 2))
        self.r.rpush(src, "x")
        t1.join(5)
        t2.join(5)
        self.assertEqual(o2["reply"], b"x")
        self.assertEqual(norm(o1["reply"]), [dst, b"x"])
        self.assertEqual(self.r.exists(src, dst), 0)

    def test_wake_inside_exec_after_exec(self):
        t, out = self.spawn(lambda c: c.execute_command("BRPOP", KEYS[2], "5"))
        self.assertTrue(wait_for(lambda: self.blocked() == 1))
        p = self.r.pipeline(transaction=True)
        p.rpush(KEYS[2], "a")
        p.rpush(KEYS[2], "b")
        p.llen(KEYS[2])
        self.assertEqual(p.execute(), [1, 2, 2])  # nobody popped inside the transaction
        t.join(5)
        self.assertEqual(norm(out["reply"]), [KEYS[2], b"b"])

    def test_inside_multi_does_not_block(self):
        a, b = b"{t}a", b"{t}b"
        p = self.r.pipeline(transaction=True)
        p.execute_command("BLPOP", a, "0")
        p.execute_command("BLMOVE", a, b, "LEFT", "LEFT", "0")
        p.execute_command("BRPOPLPUSH", a, b, "0")
        p.execute_command("BLMPOP", "0", "1", a, "LEFT")
        p.rpush(a, "v")
        p.execute_command("BLPOP", a, "0")
        self.assertEqual([norm(x) for x in p.execute()], [None, None, None, None, 1, [a, b"v"]])

    def test_disconnect_while_blocked(self):
        s = socket.create_connection(("127.0.0.1", self.srv.port))
        s.sendall(b"*3\r\n$5\r\nBLPOP\r\n$%d\r\n%s\r\n$1\r\n0\r\n" % (len(KEYS[5]), KEYS[5]))
        self.assertTrue(wait_for(lambda: self.blocked() == 1))
        s.close()
        self.assertTrue(wait_for(lambda: self.blocked() == 0))
        # The push is not eaten by the gone client.
        self.r.rpush(KEYS[5], "kept")
        time.sleep(0.05)
        self.assertEqual(self.r.lrange(KEYS[5], 0, -1), [b"kept"])

    def test_client_unblock_timeout_and_error(self):
        for reason, want in ((None, {"reply": None}), ("TIMEOUT", {"reply": None}),
                             ("ERROR", {"error": "UNBLOCKED client unblocked via CLIENT UNBLOCK"})):
            ids = {}

            def blpop(c):
                ids["id"] = c.client_id()
                return c.execute_command("BLPOP", KEYS[1], "0")

            t, out = self.spawn(blpop)
            self.assertTrue(wait_for(lambda: self.blocked() == 1))
            args = ["CLIENT", "UNBLOCK", ids["id"]] + ([reason] if reason else [])
            self.assertEqual(self.r.execute_command(*args), 1)
            t.join(5)
            self.assertEqual({k: v for k, v in out.items() if k != "at"}, want)
            self.assertEqual(self.r.execute_command(*args), 0)  # no longer blocked
        self.assertEqual(self.r.execute_command("CLIENT", "UNBLOCK", self.r.client_id()), 0)
        with self.assertRaises(Exception) as cm:
            self.r.execute_command("CLIENT", "UNBLOCK", "1", "LATER")
        self.assertEqual(str(cm.exception), "CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
        self.assertEqual(self.blocked(), 0)

    def test_bad_timeouts_and_wrongtype(self):
        self.r.set("str", "x")
        cases = [(["BLPOP", "k", "-1"], "timeout is negative"),
                 (["BLPOP", "k", "abc"], "timeout is not a float or out of range"),
                 (["BRPOP", "k", "nan"], "timeout is not a float or out of range"),
                 (["BLMOVE", "{t}k", "{t}d", "UP", "LEFT", "0"], "syntax error"),
                 (["BLMPOP", "0", "1", "k", "UP"], "syntax error"),
                 (["BLMPOP", "0", "1", "k", "LEFT", "COUNT", "0"], "count should be greater than 0"),
                 (["BLMPOP", "0", "0", "k", "LEFT"], "numkeys should be greater than 0"),
                 (["BLMPOP", "-1", "1", "k", "LEFT"], "timeout is negative"),
                 (["BLPOP", "str", "0"],
                  "WRONGTYPE Operation against a key holding the wrong kind of value")]
        for cmd, want in cases:
            with self.assertRaises(Exception) as cm:
                self.r.execute_command(*cmd)
            self.assertEqual(str(cm.exception), want, cmd)
        self.assertEqual(self.blocked(), 0)


blocking_case.bind(Base, globals(), KEYS[:2])


if __name__ == "__main__":
    unittest.main()
