"""MONITOR beside redis-server: the exact line format for a command stream (binary arguments
quoted as sdscatrepr does, AUTH / HELLO AUTH / MIGRATE AUTH redacted, admin commands and
refused commands not shown, EXEC after its commands, EVAL before its script's "lua" lines,
SELECT's new db), what the monitoring client may still do (PING yes, keys no, a second
MONITOR answers nothing, RESET ends it), MONITOR refused inside EXEC, CLIENT LIST's flag O;
and through a 2-worker proxy port, every monitor (whichever worker holds its connection)
seeing each command on keys of either worker exactly once. Timestamps and client ports are
the only parts compared loosely."""

import re
import time

import itest

LINE = re.compile(rb"^\+(\d+)\.(\d{6}) \[(\d+) ([^\]]+)\] (.*)$")
MARK = b'"ECHO" "monitor-test-end"'


class MonitorConn:
    """A raw connection in MONITOR mode, read line by line."""

    def __init__(self, port):
        self.raw = itest.Raw(port)
        self.raw.send(itest.encode("MONITOR"))
        self.buf = b""
        first = self.line(5.0)
        assert first == b"+OK", first

    def line(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\r\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.raw.sock.settimeout(left)
            try:
                data = self.raw.sock.recv(65536)
            except OSError:
                return None
            if not data:
                return None
            self.buf += data
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def until_mark(self, addr, timeout=10.0):
        """The lines (timestamp dropped, the client's own address as ADDR) up to the marker."""
        out = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.line(deadline - time.monotonic())
            if line is None:
                break
            m = LINE.match(line)
            assert m, line
            who = m.group(4)
            if who == addr:
                who = b"ADDR"
            if m.group(5) == MARK:
                return out
            out.append(b"[%s %s] %s" % (m.group(3), who, m.group(5)))
        raise AssertionError(f"no marker; got {out}")

    def close(self):
        self.raw.close()


def run(port, commands):
    """Runs `commands` on one raw connection; returns its address as the server sees it."""
    with itest.Raw(port) as c:
        addr = c.call("CLIENT", "INFO")
        local = "%s:%d" % c.sock.getsockname()
        for cmd in commands:
            c.call(*cmd)
        c.call("ECHO", "monitor-test-end")
    assert local.encode() in addr, addr
    return local.encode()


STREAM = [
    ("SET", "k", "v"),
    ("SET", "b", b"a\x00\n\r\t\x07\x08\"\\\x7f\xff \xc3\xa9"),
    ("GET", "k"),
    ("NOSUCHCOMMAND", "x"),
    ("GET",),
    ("LPUSH", "k", "x"),
    ("MULTI",),
    ("SET", "a", "1"),
    ("INCR", "a"),
    ("EXEC",),
    ("EVAL", "redis.call('set', KEYS[1], '1'); return redis.call('get', KEYS[1])", "1", "x"),
    ("AUTH", "secret"),
    ("AUTH", "user", "secret"),
    ("HELLO", "2", "AUTH", "default", "secret"),
    ("CONFIG", "GET", "maxmemory"),
    ("CLIENT", "SETNAME", "monitored"),
    ("CLIENT", "LIST"),
    ("SELECT", "3"),
    ("SET", "z", "-12"),
    ("SELECT", "0"),
]

EXPECTED = [
    b'[0 ADDR] "SET" "k" "v"',
    b'[0 ADDR] "SET" "b" "a\\x00\\n\\r\\t\\a\\b\\"\\\\\\x7f\\xff \\xc3\\xa9"',
    b'[0 ADDR] "GET" "k"',
    b'[0 ADDR] "LPUSH" "k" "x"',
    b'[0 ADDR] "MULTI"',
    b'[0 ADDR] "SET" "a" "1"',
    b'[0 ADDR] "INCR" "a"',
    b'[0 ADDR] "EXEC"',
    b'[0 ADDR] "EVAL" "redis.call(\'set\', KEYS[1], \'1\'); return redis.call(\'get\', KEYS[1])"'
    b' "1" "x"',
    b'[0 lua] "set" "x" "1"',
    b'[0 lua] "get" "x"',
    b'[0 ADDR] "AUTH" "(redacted)"',
    b'[0 ADDR] "AUTH" "(redacted)" "(redacted)"',
    b'[0 ADDR] "HELLO" "2" "AUTH" "(redacted)" "(redacted)"',
    b'[0 ADDR] "CLIENT" "SETNAME" "monitored"',
    b'[3 ADDR] "SELECT" "3"',
    b'[3 ADDR] "SET" "z" "-12"',
    b'[0 ADDR] "SELECT" "0"',
]


class MonitorCases:
    def monitor(self):
        m = MonitorConn(self.port)
        self.addCleanup(m.close)
        return m

    def test_line_format_of_a_command_stream(self):
        m = self.monitor()
        addr = run(self.port, STREAM)
        got = m.until_mark(addr)
        # CLIENT INFO (run() asks it the address) is not an admin command: it is shown.
        self.assertEqual(got[0], b'[0 ADDR] "CLIENT" "INFO"')
        self.assertEqual(got[1:], EXPECTED)

    def test_monitoring_client(self):
        m = self.monitor()
        raw = m.raw
        raw.send(itest.encode("GET", "k"))
        self.assertEqual(m.line(5), b"-ERR Replica can't interact with the keyspace")
        raw.send(itest.encode("MONITOR"))  # already monitoring: no answer at all
        raw.send(itest.encode("PING"))
        self.assertEqual(m.line(5), b"+PONG")
        own = m.line(5)
        self.assertRegex(own, rb'^\+\d+\.\d{6} \[0 127\.0\.0\.1:\d+\] "PING"$')
        with itest.Raw(self.port) as c:
            listing = c.call("CLIENT", "LIST").decode()
        line = [x for x in listing.split("\n") if "cmd=monitor" in x or "cmd=ping" in x]
        self.assertTrue(any(" flags=O " in x for x in line), listing)
        raw.send(itest.encode("RESET"))
        self.assertEqual(m.line(5), b"+RESET")
        with itest.Raw(self.port) as c:
            c.call("SET", "after", "reset")
        self.assertEqual(m.line(0.3), None)
        self.assertEqual(raw.call("GET", "after"), b"$5\r\nreset\r\n")

    def test_monitor_inside_exec_is_refused(self):
        with itest.Raw(self.port) as c:
            self.assertEqual(c.call("MULTI"), b"+OK\r\n")
            self.assertEqual(c.call("MONITOR"), b"+QUEUED\r\n")
            self.assertEqual(c.call("EXEC"),
                             b"*1\r\n-ERR MONITOR isn't allowed for DENY BLOCKING client\r\n")
            self.assertEqual(c.call("SET", "still", "normal"), b"+OK\r\n")


class RedisReference(MonitorCases, itest.RedisCase):
    pass


class Ruvio(MonitorCases, itest.RuvioCase):
    pass


class RuvioProxy(itest.RuvioProxyCase):
    """Monitors on the proxy port: whichever worker holds a monitor's connection, it sees the
    commands run on either worker (and forwarded ones) once each."""

    def test_every_monitor_sees_both_workers_once(self):
        monitors = [MonitorConn(self.port) for _ in range(4)]
        for m in monitors:
            self.addCleanup(m.close)
        k0 = itest.keys_of(0, 1, "mon")[0]
        k1 = itest.keys_of(1, 1, "mon")[0]
        cmds = [
            ("SET", k0, "zero"),
            ("SET", k1, b"one\x01"),
            ("MGET", k0, k1),
            ("DBSIZE",),
            ("EVAL", "return redis.call('incr', KEYS[1])", "1", k1 + "n"),
            ("MULTI",),
            ("INCR", k1 + "n"),
            ("EXEC",),
        ]
        addr = run(self.port, cmds)
        expected = [
            b'[0 ADDR] "CLIENT" "INFO"',
            b'[0 ADDR] "SET" "%s" "zero"' % k0.encode(),
            b'[0 ADDR] "SET" "%s" "one\\x01"' % k1.encode(),
            b'[0 ADDR] "MGET" "%s" "%s"' % (k0.encode(), k1.encode()),
            b'[0 ADDR] "DBSIZE"',
            b'[0 ADDR] "EVAL" "return redis.call(\'incr\', KEYS[1])" "1" "%sn"' % k1.encode(),
            b'[0 lua] "incr" "%sn"' % k1.encode(),
            b'[0 ADDR] "MULTI"',
            b'[0 ADDR] "INCR" "%sn"' % k1.encode(),
            b'[0 ADDR] "EXEC"',
        ]
        for m in monitors:
            self.assertEqual(m.until_mark(addr), expected)


if __name__ == "__main__":
    import unittest

    unittest.main()
