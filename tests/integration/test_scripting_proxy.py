"""Scripts through the proxy port of a 2-worker Ruvio: EVAL/EVALSHA run on the owner of
their declared keys (keys on two owners: CROSSSLOT, as any keyed command), keyless scripts
on the connection's worker; a key the script did not declare may be used when it lives on
that same worker, and one owned by the other worker is refused with an error naming it.
SCRIPT LOAD / EXISTS / FLUSH reach both workers, so EVALSHA finds its script wherever the
keys take it."""

import hashlib
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

GET = "return redis.call('get', KEYS[1])"
GET_SHA = "4e6d8fc8bb01276962cce5371fa795a7763657ae"


class ScriptingProxy(itest.RuvioProxyCase):
    def setUp(self):
        super().setUp()
        self.r.script_flush()
        self.k0 = itest.keys_of(0, 2, "a")
        self.k1 = itest.keys_of(1, 2, "b")

    def test_evalsha_finds_the_script_on_both_workers(self):
        self.assertEqual(self.raw_call("SCRIPT", "LOAD", GET),
                         b"$40\r\n" + GET_SHA.encode() + b"\r\n")
        for k in self.k0 + self.k1:
            self.r.set(k, "v" + k)
            self.assertEqual(self.raw_call("EVALSHA", GET_SHA, "1", k),
                             b"$%d\r\nv%s\r\n" % (len(k) + 1, k.encode()))
        self.assertEqual(self.raw_call("SCRIPT", "EXISTS", GET_SHA, "0" * 40),
                         b"*2\r\n:1\r\n:0\r\n")
        self.assertEqual(self.raw_call("SCRIPT", "FLUSH"), b"+OK\r\n")
        for k in (self.k0[0], self.k1[0]):
            self.assertEqual(self.raw_call("EVALSHA", GET_SHA, "1", k),
                             b"-NOSCRIPT No matching script. Please use EVAL.\r\n")

    def test_writes_run_on_the_owner(self):
        for k in (self.k0[0], self.k1[0]):
            self.assertEqual(self.raw_call("EVAL", "redis.call('rpush', KEYS[1], ARGV[1]) "
                                           "return redis.call('lrange', KEYS[1], 0, -1)", "1",
                                           k, "x"), b"*1\r\n$1\r\nx\r\n")
            self.assertEqual(self.r.lrange(k, 0, -1), ["x"])

    def test_declared_keys_on_two_workers(self):
        self.assertEqual(self.raw_call("EVAL", "return 1", "2", self.k0[0], self.k1[0]),
                         b"-" + self.CROSSSLOT.encode() + b"\r\n")
        self.assertEqual(self.raw_call("EVAL", "return #KEYS", "2", "{t}1", "{t}2"), b":2\r\n")

    def test_undeclared_keys(self):
        a, b = self.k0
        self.r.set(b, "same-worker")
        # declared a, used b: both on worker 0
        self.assertEqual(self.raw_call("EVAL", "return redis.call('get', ARGV[1])", "1", a, b),
                         b"$11\r\nsame-worker\r\n")
        other = self.k1[0]
        script = "return redis.call('set', ARGV[1], 'x')"
        reply = self.raw_call("EVAL", script, "1", a, other)
        self.assertEqual(reply, b"-ERR Script attempted to access key '" + other.encode() +
                         b"' owned by another worker; a script's keys must live on one worker"
                         b" (declare them in KEYS or give them a common {hash tag}) script: " +
                         hashlib.sha1(script.encode()).hexdigest().encode() +
                         b", on @user_script:1.\r\n")
        self.assertEqual(self.r.exists(other), 0)
        # caught by pcall like any command error
        self.assertEqual(self.raw_call("EVAL", "return type(redis.pcall('get', ARGV[1]))", "1",
                                       a, other), b"$5\r\ntable\r\n")

    def test_keyless_script_runs_here_and_serves(self):
        self.assertEqual(self.raw_call("EVAL", "return redis.call('ping')", "0"),
                         b"+PONG\r\n")


if __name__ == "__main__":
    unittest.main()
