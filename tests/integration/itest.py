"""Shared pieces of the integration tests: a server per test class (Ruvio or the reference
redis-server), a raw RESP socket client that returns exact reply bytes, and redis-cli.

A test module writes its assertions once in a plain mixin class and binds it to both
servers:

    class StringCases:
        def test_get(self): ...
    class RedisReference(StringCases, itest.RedisCase): pass
    class Ruvio(StringCases, itest.RuvioCase): pass

so the reference run proves the expected text is Redis's own.
"""

import os
import re
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402

SOCKET_TIMEOUT = 10.0


def require_ruvio():
    if not harness.ruvio_built():
        raise unittest.SkipTest(f"{harness.RUVIO_BIN} not built")


def start(kind, args=(), **kw):
    if kind == "ruvio":
        require_ruvio()
    return harness.Server(kind=kind, args=args, **kw)


class ServerCase(unittest.TestCase):
    """One server for the whole class; every test starts on an empty server."""

    kind = None
    server_args = ()
    flush = True
    # Prepended to the key names of tests that use k(): a proxy class sets a {hash tag}
    # here to run a test whose keys must share an owner (RENAME, LCS, MSETNX).
    key_prefix = ""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = start(cls.kind, cls.server_args)
        # Also when a subclass's setUpClass fails after this: tearDownClass never runs then.
        cls.addClassCleanup(cls.server.stop)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        self.r = self.server.client(decode_responses=True)
        if self.flush:
            self.r.flushall()

    def tearDown(self):
        self.r.close()
        super().tearDown()

    def k(self, name):
        return self.key_prefix + name

    @property
    def port(self):
        return self.server.port

    def raw(self):
        c = Raw(self.port)
        self.addCleanup(c.close)
        return c

    def cmd(self, *args):
        """One command through a fresh raw connection: the exact reply bytes."""
        with Raw(self.port) as c:
            return c.call(*args)

    def cli(self, *args):
        return redis_cli(self.port, *args)

    def assertError(self, text, *args):
        """The command's reply is exactly `-text\\r\\n`."""
        self.assertEqual(self.raw_call(*args), b"-" + text.encode() + b"\r\n")

    def raw_call(self, *args):
        if not hasattr(self, "_raw"):
            self._raw = self.raw()
        return self._raw.call(*args)


class RedisCase(ServerCase):
    kind = "redis"


class RuvioCase(ServerCase):
    kind = "ruvio"
    # Not built yet: every test of every subclass reports itself skipped.
    if not harness.ruvio_built():
        __unittest_skip__ = True
        __unittest_skip_why__ = f"{harness.RUVIO_BIN} not built"


class RuvioProxyCase(RuvioCase):
    """Ruvio with 2 workers, driven through the proxy port: every key is routed to the
    worker that owns its slot (0-8191 → worker 0, 8192-16383 → worker 1), so the same
    assertions check the forwarding, splitting and fan-out paths. The few replies that
    legitimately differ from one Redis are overridden in the proxy class of the module,
    each with its reason."""
    server_args = ("--workers", "2")
    workers = 2

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # The ready line comes before every mesh link is up: for ~0.1 s keys of the other
        # worker answer LOADING. test_proxy's test_ready_means_every_worker_reaches_every_key
        # asserts that; here the class waits it out (bounded) so the rest tests the rest.
        args = list(cls.server_args)
        password = args[args.index("--requirepass") + 1] if "--requirepass" in args else None
        harness.wait_mesh_up(cls.server.port, cls.workers, password=password)

    CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot"


def wait_mesh_up(port, timeout=5.0, workers=2):
    return harness.wait_mesh_up(port, workers, timeout)


def owner(key, workers=2):
    """The worker that owns `key` in a Ruvio of `workers` workers."""
    return harness.key_owner(key, workers)


def keys_of(worker, n, prefix="key", workers=2):
    """The first n keys `prefix0`, `prefix1`, ... owned by `worker`."""
    out, i = [], 0
    while len(out) < n:
        k = f"{prefix}{i}"
        if harness.key_owner(k, workers) == worker:
            out.append(k)
        i += 1
    return out


def redis_cli(port, *args, stdin=None):
    """redis-cli's stdout (not a tty: its raw output format)."""
    p = subprocess.run(["redis-cli", "-p", str(port), *map(str, args)], input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=20)
    return p.stdout.decode(errors="replace")


def encode(*args):
    parts = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, int):
            a = str(a)
        if isinstance(a, str):
            a = a.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(parts)


class Closed(Exception):
    pass


class Raw:
    """A plain TCP connection that sends bytes and returns one whole reply's exact bytes
    (RESP2 or RESP3)."""

    def __init__(self, port, timeout=SOCKET_TIMEOUT, host="127.0.0.1"):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, data):
        self.sock.sendall(data)

    def call(self, *args):
        self.send(encode(*args))
        return self.reply()

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise Closed("connection closed by server")
        self.buf += data

    def _line(self, pos):
        while True:
            i = self.buf.find(b"\r\n", pos)
            if i >= 0:
                return i
            self._fill()

    def _end(self, pos):
        """Index just past the reply that starts at pos (reading more as needed)."""
        while len(self.buf) <= pos:
            self._fill()
        t = self.buf[pos:pos + 1]
        eol = self._line(pos)
        head = self.buf[pos + 1:eol]
        nxt = eol + 2
        if t in b"+-:_,#(":
            return nxt
        if t in b"$!=":
            n = int(head)
            if n < 0:
                return nxt
            while len(self.buf) < nxt + n + 2:
                self._fill()
            return nxt + n + 2
        if t in b"*~>%|":
            n = int(head)
            if t in b"%|":
                n *= 2
            for _ in range(max(n, 0)):
                nxt = self._end(nxt)
            return nxt
        raise AssertionError(f"not a RESP reply: {self.buf[pos:pos + 80]!r}")

    def reply(self):
        end = self._end(0)
        out, self.buf = self.buf[:end], self.buf[end:]
        return out

    def read_quiet(self, quiet=0.15, limit=3.0):
        """Everything the server sends (what is buffered first) until the connection is
        quiet for `quiet` s, or `limit` s have passed: pushes that come unasked."""
        self.sock.settimeout(quiet)
        data, self.buf = self.buf, b""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            data += chunk
        return data

    def read_until_closed(self, timeout=5.0):
        """Everything the server sends until it closes the connection; raises
        AssertionError if it stays open longer than timeout."""
        self.sock.settimeout(timeout)
        data, self.buf = self.buf, b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                return data
            if not chunk:
                return data
            data += chunk
        raise AssertionError(f"connection still open after {timeout}s; got {data!r}")


def wait_for(pred, timeout=5.0, interval=0.02):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() >= deadline:
            return v
        time.sleep(interval)


def bind(cases, module_globals):
    """Defines RedisReference and Ruvio test classes for the mixin `cases`."""
    for base, name in ((RedisCase, "RedisReference"), (RuvioCase, "Ruvio"),
                       (RuvioProxyCase, "RuvioProxy")):
        module_globals[name] = type(name, (cases, base), {"__module__":
                                                         module_globals["__name__"]})
