"""Serving blocked clients resumes only the clients served (Redis's handleClientsBlockedOnKeys),
compared with redis-server 7.0.15 where the replies can be: 200 clients parked on one list and
one push serve exactly the first, the other 199 stay parked and untouched (CLIENT LIST
flags=b, their idle time not reset by a re-run); the exact split for BLMOVE chains (the moved
elements serve the clients parked on the destination), BLMPOP counts and BZPOPMIN; a waiter
for a list stays parked when its key becomes a sorted set (Redis passes it over). Through the
proxy port of 2 workers, a blocked command forwarded to its key's owner shows flags=b and
cmd=blpop in CLIENT LIST on the client's own worker."""

import os
import sys
import time
import unittest

import redis

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402
from blocking_case import BlockingServer, wait_for  # noqa: E402


class Base(BlockingServer):
    def park(self, n, *cmd):
        """n connections, each sending `cmd` once it is the only new one parked (FIFO order)."""
        conns = []
        start = self.blocked()
        for i in range(n):
            c = redis.Connection(port=self.srv.port)
            c.connect()
            c.send_command(*cmd)
            conns.append(c)
            self.assertTrue(wait_for(lambda: self.blocked() == start + i + 1), (cmd, i))
        self.addCleanup(lambda: [c.disconnect() for c in conns])
        return conns

    def served(self, conns, n):
        """The replies, by position, of the connections that answered: waits (bounded) for
        `n` of them, then 0.2 s more for any other (there must be none)."""
        out = {}

        def poll(wait):
            for i, c in enumerate(conns):
                if i not in out and c.can_read(timeout=wait):
                    r = c.read_response()
                    out[i] = list(r) if isinstance(r, tuple) else r

        deadline = time.monotonic() + 5
        while len(out) < n and time.monotonic() < deadline:
            poll(0)
            time.sleep(0.01)
        time.sleep(0.2)
        poll(0)
        return out

    def blocked_entries(self):
        return [line for line in self.r.execute_command("CLIENT", "LIST").decode().splitlines()
                if " flags=b " in line]

    def test_one_push_serves_one_of_200(self):
        conns = self.park(200, "BLPOP", "q200", "0")
        time.sleep(1.1)
        self.r.lpush("q200", "only")
        self.assertEqual(self.served(conns, 1), {0: [b"q200", b"only"]})
        self.assertEqual(self.blocked(), 199)
        entries = self.blocked_entries()
        self.assertEqual(len(entries), 199)
        # Not run again: a re-run command would count as an interaction (idle back to 0).
        idles = [int(line.split(" idle=")[1].split()[0]) for line in entries]
        self.assertGreaterEqual(min(idles), 1, idles)
        self.assertEqual(self.r.exists("q200"), 0)
        # The next push serves the next in line.
        self.r.rpush("q200", "a", "b")
        self.assertEqual(self.served(conns[1:], 2), {0: [b"q200", b"a"], 1: [b"q200", b"b"]})
        self.assertEqual(self.blocked(), 197)

    def test_blmove_chain_serves_exactly(self):
        movers = self.park(6, "BLMOVE", "{c}src", "{c}dst", "LEFT", "RIGHT", "0")
        poppers = self.park(6, "BLPOP", "{c}dst", "0")
        self.r.rpush("{c}src", "a", "b", "c")
        self.assertEqual(self.served(movers, 3), {0: b"a", 1: b"b", 2: b"c"})
        self.assertEqual(self.served(poppers, 3),
                         {0: [b"{c}dst", b"a"], 1: [b"{c}dst", b"b"], 2: [b"{c}dst", b"c"]})
        self.assertEqual(self.r.exists("{c}src", "{c}dst"), 0)
        self.assertEqual(self.blocked(), 6)

    def test_blmpop_counts(self):
        conns = self.park(5, "BLMPOP", "0", "1", "mp", "LEFT", "COUNT", "3")
        self.r.rpush("mp", *[str(i) for i in range(1, 9)])
        self.assertEqual(self.served(conns, 3), {
            0: [b"mp", [b"1", b"2", b"3"]], 1: [b"mp", [b"4", b"5", b"6"]],
            2: [b"mp", [b"7", b"8"]]})
        self.assertEqual(self.blocked(), 2)

    def test_bzpopmin_in_order(self):
        conns = self.park(5, "BZPOPMIN", "z", "0")
        self.r.zadd("z", {"c": 3, "a": 1, "b": 2})
        self.assertEqual(self.served(conns, 3), {0: [b"z", b"a", b"1"], 1: [b"z", b"b", b"2"],
                                              2: [b"z", b"c", b"3"]})
        self.assertEqual(self.blocked(), 2)

    def test_list_waiter_passed_over_by_a_zset(self):
        conns = self.park(1, "BLPOP", "t", "0")
        self.r.zadd("t", {"m": 1})
        self.assertEqual(self.served(conns, 0), {})
        self.assertEqual(self.blocked(), 1)
        self.r.delete("t")
        self.r.rpush("t", "x")
        self.assertEqual(self.served(conns, 1), {0: [b"t", b"x"]})
        self.assertEqual(self.blocked(), 0)


class Redis(Base, unittest.TestCase):
    kind = "redis"


class Ruvio(Base, unittest.TestCase):
    kind = "ruvio"


class RuvioProxy(BlockingServer, unittest.TestCase):
    kind = "ruvio"
    workers = 2

    def test_forwarded_blocked_command_shows_flags_b(self):
        # One key per owner: whichever worker accepts the client, one BLPOP is forwarded.
        keys = [b"bl:a", b"bl:b"]
        self.assertEqual({harness.key_owner(k) for k in keys}, {0, 1})
        for key in keys:
            c = redis.Connection(port=self.srv.port)
            c.connect()
            c.send_command("CLIENT", "ID")
            cid = c.read_response()
            c.send_command("BLPOP", key, "0")
            self.assertTrue(wait_for(lambda: self.blocked() == 1), key)
            mine = [line for line in self.r.execute_command("CLIENT", "LIST").decode().split("\n")
                    if f"id={cid} " in line]
            self.assertEqual(len(mine), 1, key)
            self.assertIn(" flags=b ", mine[0], key)
            self.assertIn(" cmd=blpop ", mine[0], key)
            self.r.rpush(key, "x")
            self.assertEqual(list(c.read_response()), [key, b"x"])
            c.send_command("CLIENT", "INFO")
            self.assertIn(" flags=N ", c.read_response().decode(), key)
            c.disconnect()
        self.assertEqual(self.blocked(), 0)


if __name__ == "__main__":
    unittest.main()
