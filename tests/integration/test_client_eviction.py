"""maxmemory-clients (Redis 7.0's client eviction): past the limit the largest client is
closed, a CLIENT NO-EVICT one survives, INFO evicted_clients counts it and the others keep
working; CONFIG GET/SET and their errors as Redis. Side by side with redis-server (who gets
evicted, the INFO field, the replies), at one worker (the limit is split over workers as
maxmemory is: test_client_memory.py's proxy class checks the shares)."""

import os
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402


def partial_set(port, key, bulk, sent=16):
    """A client whose query buffer holds the start of a SET with a `bulk`-byte value: Redis
    (and Ruvio) size the buffer for the whole argument at once."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n" % (len(key), key.encode(), bulk))
    s.sendall(b"x" * sent)
    return s


def closed(sock, timeout=5.0):
    """True once the server closed `sock` (bounded wait)."""
    sock.settimeout(0.1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if sock.recv(1) == b"":
                return True
        except socket.timeout:
            continue
        except OSError:
            return True
    return False


def tot_mem(r, name):
    for c in r.client_list():
        if c["name"] == name:
            return int(c["tot-mem"])
    return None


class EvictionCases:
    def setUp(self):
        super().setUp()
        self.addCleanup(self.r.config_set, "maxmemory-clients", "0")
        self.addCleanup(self.r.config_set, "maxmemory", "0")

    def named(self, sock, name):
        sock.sendall(b"*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$%d\r\n%s\r\n" % (len(name), name))

    def test_config_get_set(self):
        c = self.raw()
        self.assertEqual(c.call("CONFIG", "GET", "maxmemory-clients"),
                         b"*2\r\n$17\r\nmaxmemory-clients\r\n$1\r\n0\r\n")
        self.assertEqual(c.call("CONFIG", "SET", "maxmemory-clients", "10%"), b"+OK\r\n")
        self.assertEqual(c.call("CONFIG", "GET", "maxmemory-clients"),
                         b"*2\r\n$17\r\nmaxmemory-clients\r\n$3\r\n10%\r\n")
        self.assertEqual(c.call("CONFIG", "SET", "maxmemory-clients", "1mb"), b"+OK\r\n")
        self.assertEqual(c.call("CONFIG", "GET", "maxmemory-clients"),
                         b"*2\r\n$17\r\nmaxmemory-clients\r\n$7\r\n1048576\r\n")
        for bad, why in (("abc", b"argument must be a memory or percent value"),
                         ("200%", b"percentage argument must be less or equal to 100")):
            self.assertEqual(c.call("CONFIG", "SET", "maxmemory-clients", bad),
                             b"-ERR CONFIG SET failed (possibly related to argument "
                             b"'maxmemory-clients') - " + why + b"\r\n")
        self.assertEqual(c.call("CONFIG", "GET", "maxmemory-clients"),
                         b"*2\r\n$17\r\nmaxmemory-clients\r\n$7\r\n1048576\r\n")
        self.assertEqual(c.call("CONFIG", "SET", "maxmemory-clients", "0"), b"+OK\r\n")

    def test_largest_evicted_no_evict_survives(self):
        before = int(self.r.info("stats")["evicted_clients"])
        # A NO-EVICT client with a 400 KB argument under way, a plain one with 700 KB, and a
        # small one; with the limit at 1 MB the 700 KB client goes, nobody else.
        keep = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        self.addCleanup(keep.close)
        keep.sendall(b"*3\r\n$6\r\nCLIENT\r\n$8\r\nNO-EVICT\r\n$2\r\non\r\n")
        self.assertEqual(keep.recv(5), b"+OK\r\n")
        self.named(keep, b"keep")
        self.assertEqual(keep.recv(5), b"+OK\r\n")
        keep.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$400000\r\n" + b"x" * 16)
        big = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        self.addCleanup(big.close)
        self.named(big, b"big")
        self.assertEqual(big.recv(5), b"+OK\r\n")
        big.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$700000\r\n" + b"x" * 16)
        small = self.raw()
        self.assertEqual(small.call("CLIENT", "SETNAME", "small"), b"+OK\r\n")
        # CLIENT LIST's tot-mem shows the argument's room, on both servers.
        deadline = time.monotonic() + 5
        while (tot_mem(self.r, "big") or 0) < 700000 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertGreaterEqual(tot_mem(self.r, "big"), 700000)
        self.assertGreaterEqual(tot_mem(self.r, "keep"), 400000)
        self.assertLess(tot_mem(self.r, "small"), 100000)

        self.r.config_set("maxmemory-clients", str(1024 * 1024 * self.workers()))
        self.assertTrue(closed(big))
        self.assertFalse(closed(keep, timeout=0.3))
        self.assertEqual(small.call("PING"), b"+PONG\r\n")
        self.assertEqual(int(self.r.info("stats")["evicted_clients"]), before + 1)
        names = sorted(c["name"] for c in self.r.client_list() if c["name"])
        self.assertEqual(names, ["keep", "small"])
        # The survivor still finishes its command.
        keep.sendall(b"x" * (400000 - 16) + b"\r\n")
        self.assertEqual(keep.recv(5), b"+OK\r\n")
        self.assertEqual(self.r.strlen("k"), 400000)

    def test_off_by_default_and_percent_of_maxmemory(self):
        # 400 KB of argument room (Ruvio's buffer grows to 512 KB, Redis's to the argument).
        s = partial_set(self.port, "p", 400000)
        self.addCleanup(s.close)
        self.assertFalse(closed(s, timeout=0.3))  # off: nothing is evicted
        # 1% of 100 MB = 1 MB (per worker: the limits are split alike).
        self.r.config_set("maxmemory", str(100 * 1024 * 1024 * self.workers()))
        self.r.config_set("maxmemory-clients", "1%")
        self.assertFalse(closed(s, timeout=0.3))  # under 1 MB
        self.r.config_set("maxmemory", str(25 * 1024 * 1024 * self.workers()))  # 256 KB
        self.r.execute_command("PING")  # a turn of the loop after the change
        self.assertTrue(closed(s))

    def workers(self):
        return 1


class RedisReference(EvictionCases, itest.RedisCase):
    pass


class Ruvio(EvictionCases, itest.RuvioCase):
    def test_eviction_logged(self):
        s = partial_set(self.port, "z", 900000)
        self.addCleanup(s.close)
        time.sleep(0.2)
        self.r.config_set("maxmemory-clients", "512kb")
        self.assertTrue(closed(s))
        deadline = time.monotonic() + 5
        while "Evicting client: id=" not in self.server.output() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertIn("Evicting client: id=", self.server.output())


if __name__ == "__main__":
    unittest.main()
