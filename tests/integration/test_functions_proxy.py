"""Functions through the proxy port of a 2-worker Ruvio: FUNCTION LOAD / DELETE / FLUSH /
RESTORE sent on one connection reach both workers, so FCALL finds the function wherever its
declared keys take it (keys on two owners: CROSSSLOT; no keys: the connection's worker);
each worker's direct port then sees the same libraries."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

LIB = ("#!lua name=px\n"
       "redis.register_function('bump', function(keys, args) "
       "return redis.call('incrby', keys[1], args[1]) end)\n"
       "redis.register_function{function_name='peek', flags={'no-writes'}, "
       "callback=function(keys) return redis.call('get', keys[1]) end}\n")


class FunctionsProxy(itest.RuvioProxyCase):
    def setUp(self):
        super().setUp()
        self.assertEqual(self.raw_call("FUNCTION", "FLUSH"), b"+OK\r\n")
        self.k0 = itest.keys_of(0, 2, "a")
        self.k1 = itest.keys_of(1, 2, "b")

    def direct(self, worker, *args):
        with itest.Raw(self.port + 1 + worker) as c:
            return c.call(*args)

    def test_load_reaches_both_workers(self):
        self.assertEqual(self.raw_call("FUNCTION", "LOAD", LIB), b"$2\r\npx\r\n")
        for k in self.k0 + self.k1:
            self.assertEqual(self.raw_call("FCALL", "bump", "1", k, "3"), b":3\r\n")
            self.assertEqual(self.raw_call("FCALL_RO", "peek", "1", k), b"$1\r\n3\r\n")
            self.assertEqual(self.r.get(k), "3")
        for w in (0, 1):
            self.assertEqual(self.direct(w, "FUNCTION", "LIST", "LIBRARYNAME", "px")[:4],
                             b"*1\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "LOAD", LIB),
                         b"-ERR Library 'px' already exists\r\n")
        self.assertEqual(self.raw_call("FCALL", "bump", "2", self.k0[0], self.k1[0], "1"),
                         b"-" + self.CROSSSLOT.encode() + b"\r\n")
        self.assertEqual(self.raw_call("FCALL", "bump", "2", "{t}1", "{t}2", "1"), b":1\r\n")
        # no keys: the connection's worker runs it
        self.assertEqual(self.raw_call("FCALL_RO", "peek", "0"),
                         b"-ERR Lua redis lib command arguments must be strings or integers "
                         b"script: peek, on @user_function:3.\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "DELETE", "px"), b"+OK\r\n")
        for w in (0, 1):
            self.assertEqual(self.direct(w, "FUNCTION", "LIST"), b"*0\r\n")
        self.assertEqual(self.raw_call("FCALL", "bump", "1", self.k1[0], "1"),
                         b"-ERR Function not found\r\n")

    def test_restore_and_flush_reach_both_workers(self):
        self.raw_call("FUNCTION", "LOAD", LIB)
        dump = self.r.function_dump()
        self.assertEqual(self.raw_call("FUNCTION", "FLUSH", "ASYNC"), b"+OK\r\n")
        for w in (0, 1):
            self.assertEqual(self.direct(w, "FUNCTION", "LIST"), b"*0\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "RESTORE", dump), b"+OK\r\n")
        for k in (self.k0[0], self.k1[0]):
            self.assertEqual(self.raw_call("FCALL", "bump", "1", k, "2"), b":2\r\n")
        stats = self.raw_call("FUNCTION", "STATS")
        self.assertTrue(stats.endswith(b"$15\r\nlibraries_count\r\n:1\r\n$15\r\nfunctions_count"
                                       b"\r\n:2\r\n"), stats)
        self.assertEqual(self.raw_call("FUNCTION", "KILL"),
                         b"-NOTBUSY No scripts in execution right now.\r\n")


if __name__ == "__main__":
    unittest.main()
