"""Malformed and hostile input: each malformed-RESP class gets Redis's exact error reply and
a closed connection while other clients carry on; oversized bulks; 10,000 connections; a
client that pipelines without reading; a partial command; input split at every byte.
Same assertions against the reference redis-server and against Ruvio."""

import socket
import struct
import threading
import time
import unittest

import itest

PROTO = b"-ERR Protocol error: "

# (name, bytes sent, exact reply before the server closes the connection)
MALFORMED = [
    ("invalid_multibulk_length", b"*abc\r\n", PROTO + b"invalid multibulk length\r\n"),
    ("oversized_multibulk_length", b"*2147483648\r\n", PROTO + b"invalid multibulk length\r\n"),
    ("huge_multibulk_length", b"*99999999999\r\n", PROTO + b"invalid multibulk length\r\n"),
    ("expected_dollar", b"*1\r\nfoo\r\n", PROTO + b"expected '$', got 'f'\r\n"),
    ("expected_dollar_got_colon", b"*2\r\n$3\r\nGET\r\n:4\r\n",
     PROTO + b"expected '$', got ':'\r\n"),
    ("invalid_bulk_length", b"*1\r\n$abc\r\n", PROTO + b"invalid bulk length\r\n"),
    ("negative_bulk_length", b"*1\r\n$-1\r\n", PROTO + b"invalid bulk length\r\n"),
    ("bulk_length_with_space", b"*1\r\n$ 4\r\nPING\r\n", PROTO + b"invalid bulk length\r\n"),
    ("oversized_bulk", b"*2\r\n$3\r\nGET\r\n$536870913\r\n", PROTO + b"invalid bulk length\r\n"),
    ("unbalanced_double_quotes", b'SET "a b\r\n', PROTO + b"unbalanced quotes in request\r\n"),
    ("unbalanced_single_quotes", b"SET 'a\r\n", PROTO + b"unbalanced quotes in request\r\n"),
    ("quote_not_followed_by_space", b'PING "a"b\r\n',
     PROTO + b"unbalanced quotes in request\r\n"),
    ("too_big_inline_request", b"x" * 70000, PROTO + b"too big inline request\r\n"),
    ("too_big_mbulk_count_string", b"*" + b"1" * 70000, PROTO + b"too big mbulk count string\r\n"),
    ("too_big_bulk_count_string", b"*1\r\n$" + b"1" * 70000,
     PROTO + b"too big bulk count string\r\n"),
]


class BadInputCases:
    def check_malformed(self, data, want):
        bystander = self.raw()
        self.assertEqual(bystander.call("SET", "k", "v"), b"+OK\r\n")
        bad = self.raw()
        # A good command first, so the error is not just "first bytes on a new connection".
        self.assertEqual(bad.call("PING"), b"+PONG\r\n")
        try:
            bad.send(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.assertEqual(bad.read_until_closed(timeout=5), want)
        self.assertEqual(bystander.call("GET", "k"), b"$1\r\nv\r\n")
        self.assertEqual(self.cmd("PING"), b"+PONG\r\n")

    for _name, _data, _want in MALFORMED:
        def _test(self, data=_data, want=_want):
            self.check_malformed(data, want)
        _test.__name__ = f"test_malformed_{_name}"
        locals()[_test.__name__] = _test
    del _name, _data, _want, _test

    def test_bulk_at_the_limit_is_accepted(self):
        # $536870912 (= 512 MB) is a legal length: the server waits for the data.
        c = self.raw()
        c.send(b"*2\r\n$4\r\nECHO\r\n$536870912\r\n")
        c.sock.settimeout(0.5)
        with self.assertRaises(socket.timeout):
            c.sock.recv(100)
        c.close()
        self.assertEqual(self.cmd("PING"), b"+PONG\r\n")

    def test_inline_and_empty_lines(self):
        c = self.raw()
        c.send(b"\r\n\r\nPING\r\n")
        self.assertEqual(c.reply(), b"+PONG\r\n")
        c.send(b"*0\r\n*-5\r\n*1\r\n$4\r\nPING\r\n")  # empty/negative multibulks are skipped
        self.assertEqual(c.reply(), b"+PONG\r\n")
        c.send(b"SET inl \"a\\x41\\n\"\r\nGET inl\r\n")
        self.assertEqual(c.reply(), b"+OK\r\n")
        self.assertEqual(c.reply(), b"$3\r\naA\n\r\n")
        c.send(b"ECHO 'single quoted'\n")  # a bare \n ends an inline command too
        self.assertEqual(c.reply(), b"$13\r\nsingle quoted\r\n")

    def test_split_at_every_byte(self):
        c = self.raw()
        c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        data = (itest.encode("SET", "split", "hello world") + b"PING\r\n" +
                itest.encode("GET", "split"))
        for i in range(len(data)):
            c.send(data[i:i + 1])
            if i % 7 == 0:
                time.sleep(0.001)
        self.assertEqual(c.reply(), b"+OK\r\n")
        self.assertEqual(c.reply(), b"+PONG\r\n")
        self.assertEqual(c.reply(), b"$11\r\nhello world\r\n")

    def test_partial_command_then_disconnect(self):
        c = self.raw()
        c.send(b"*3\r\n$3\r\nSET\r\n$7\r\npartial\r\n$5\r\nab")
        time.sleep(0.1)
        c.close()
        c = self.raw()
        c.send(b"*3\r\n$3\r\nSET\r\n$7\r\npar")
        c.close()
        self.assertEqual(self.cmd("EXISTS", "partial"), b":0\r\n")
        self.assertTrue(itest.wait_for(
            lambda: self.r.info("clients")["connected_clients"] == 1, timeout=10))

    def test_10000_connections(self):
        deadline = time.monotonic() + 90
        opened = 0
        while opened < 10000:
            self.assertLess(time.monotonic(), deadline, f"only {opened} connections in 90 s")
            batch = []
            for _ in range(250):
                s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
                batch.append(s)
            # Half of them talk before leaving, half just leave; half of each half leave
            # with a reset (SO_LINGER 0) instead of a FIN, which also keeps this test from
            # filling the port space with TIME_WAIT sockets.
            for s in batch[::2]:
                s.sendall(b"PING\r\n")
            for s in batch[::2]:
                self.assertEqual(s.recv(16), b"+PONG\r\n")
            for i, s in enumerate(batch):
                if i % 4 < 2:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.close()
            opened += len(batch)
        self.assertEqual(self.cmd("PING"), b"+PONG\r\n")
        # Closing 10,000 sockets takes the server a moment on a loaded machine.
        n = itest.wait_for(lambda: self.r.info("clients")["connected_clients"] == 1,
                           timeout=10)
        self.assertTrue(n, self.r.info("clients"))
        self.assertGreaterEqual(self.r.info("stats")["total_connections_received"], 10000)

    def test_client_that_never_reads(self):
        r = self.r
        r.set("big", "v" * 10240)
        hog = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        self.addCleanup(hog.close)
        hog.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        request = itest.encode("GET", "big") * 1000
        done = threading.Event()

        def flood():
            # 200,000 GETs of a 10 KB value; the server may stop reading us: fine.
            try:
                for _ in range(200):
                    if done.is_set():
                        break
                    hog.sendall(request)
            except OSError:
                pass

        t = threading.Thread(target=flood, daemon=True)
        t.start()
        try:
            other = self.raw()
            worst = 0.0
            t_end = time.monotonic() + 3
            n = 0
            while time.monotonic() < t_end:
                t0 = time.monotonic()
                self.assertEqual(other.call("INCR", "counter"), b":%d\r\n" % (n + 1))
                n += 1
                worst = max(worst, time.monotonic() - t0)
                time.sleep(0.01)
            # A starved client would wait the whole 3 s; 1.5 s leaves room for a loaded
            # 2-core machine's scheduling without hiding starvation.
            self.assertLess(worst, 1.5, f"slowest reply {worst:.3f}s while a client hogs")
            self.assertGreater(n, 20)
            other.close()
        finally:
            done.set()
            try:
                hog.shutdown(socket.SHUT_RDWR)  # wakes the flood thread's blocked sendall
            except OSError:
                pass
            hog.close()
            t.join(15)
        self.assertEqual(self.cmd("GET", "counter"), b"$%d\r\n%d\r\n" % (len(str(n)), n))
        self.assertTrue(itest.wait_for(
            lambda: r.info("clients")["connected_clients"] == 1, timeout=5))


class RedisReference(BadInputCases, itest.RedisCase):
    pass


class Ruvio(BadInputCases, itest.RuvioCase):
    pass


class RuvioProxy(BadInputCases, itest.RuvioProxyCase):
    pass


if __name__ == "__main__":
    unittest.main()
