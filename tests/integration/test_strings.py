"""String commands: normal replies and Redis 7's exact error replies, run against the
reference redis-server and against Ruvio with the same assertions."""

import time
import unittest

import itest

NOT_INT = "ERR value is not an integer or out of range"
SYNTAX = "ERR syntax error"


def arity(cmd):
    return f"ERR wrong number of arguments for '{cmd}' command"


class StringCases:
    # ---- GET / SET and its options --------------------------------------------------
    def test_get_set(self):
        r = self.r
        self.assertIsNone(r.get("k"))
        self.assertEqual(self.raw_call("GET", "k"), b"$-1\r\n")
        self.assertEqual(self.raw_call("SET", "k", "v"), b"+OK\r\n")
        self.assertEqual(self.raw_call("GET", "k"), b"$1\r\nv\r\n")
        self.assertTrue(r.set("k", "hello world"))
        self.assertEqual(r.get("k"), "hello world")
        big = "x" * 100000
        r.set("big", big)
        self.assertEqual(r.get("big"), big)
        r.set("empty", "")
        self.assertEqual(self.raw_call("GET", "empty"), b"$0\r\n\r\n")
        bin_ = bytes(range(256))
        self.raw_call("SET", "bin", bin_)
        self.assertEqual(self.raw_call("GET", "bin"), b"$256\r\n" + bin_ + b"\r\n")
        r.set("n", 12345)
        self.assertEqual(self.raw_call("GET", "n"), b"$5\r\n12345\r\n")

    def test_get_set_errors(self):
        self.assertError(arity("get"), "GET")
        self.assertError(arity("get"), "GET", "a", "b")
        self.assertError(arity("set"), "SET", "k")
        self.assertError(SYNTAX, "SET", "k", "v", "NX", "XX")
        self.assertError(SYNTAX, "SET", "k", "v", "EX", "10", "PX", "100")
        self.assertError(SYNTAX, "SET", "k", "v", "EX")
        self.assertError(SYNTAX, "SET", "k", "v", "BOGUS")
        self.assertError(SYNTAX, "SET", "k", "v", "KEEPTTL", "EX", "10")
        self.assertError(NOT_INT, "SET", "k", "v", "EX", "abc")
        self.assertError("ERR invalid expire time in 'set' command", "SET", "k", "v", "EX", "0")
        self.assertError("ERR invalid expire time in 'set' command", "SET", "k", "v", "PX", "-5")
        self.assertError("ERR invalid expire time in 'set' command",
                         "SET", "k", "v", "EX", "9223372036854775807")
        self.assertEqual(self.r.exists("k"), 0)

    def test_set_nx_xx_get(self):
        r = self.r
        self.assertEqual(self.raw_call("SET", "k", "v", "XX"), b"$-1\r\n")
        self.assertEqual(self.raw_call("SET", "k", "v1", "NX"), b"+OK\r\n")
        self.assertEqual(self.raw_call("SET", "k", "v2", "NX"), b"$-1\r\n")
        self.assertEqual(self.raw_call("SET", "k", "v3", "XX"), b"+OK\r\n")
        self.assertEqual(r.get("k"), "v3")
        self.assertEqual(self.raw_call("SET", "k", "v4", "GET"), b"$2\r\nv3\r\n")
        self.assertEqual(self.raw_call("SET", "new", "v", "GET"), b"$-1\r\n")
        self.assertEqual(r.get("new"), "v")
        self.assertEqual(self.raw_call("SET", "k", "v5", "NX", "GET"), b"$2\r\nv4\r\n")
        self.assertEqual(r.get("k"), "v4")
        self.assertEqual(self.raw_call("SET", "k", "v6", "XX", "GET"), b"$2\r\nv4\r\n")
        self.assertEqual(self.raw_call("SET", "nokey", "v", "XX", "GET"), b"$-1\r\n")
        self.assertIsNone(r.get("nokey"))
        self.assertEqual(self.raw_call("set", "lower", "v", "nx", "ex", "100"), b"+OK\r\n")
        self.assertEqual(r.ttl("lower"), 100)

    def test_set_expiry_options(self):
        r = self.r
        r.set("k", "v", ex=100)
        self.assertEqual(r.ttl("k"), 100)
        r.set("k", "v", px=100000)
        self.assertTrue(99000 < r.pttl("k") <= 100000)
        at = int(time.time()) + 200
        self.assertEqual(self.raw_call("SET", "k", "v", "EXAT", at), b"+OK\r\n")
        self.assertEqual(r.expiretime("k") if hasattr(r, "expiretime") else
                         r.execute_command("EXPIRETIME", "k"), at)
        self.assertEqual(self.raw_call("SET", "k", "v", "PXAT", at * 1000 + 5), b"+OK\r\n")
        self.assertEqual(r.execute_command("PEXPIRETIME", "k"), at * 1000 + 5)
        self.assertEqual(self.raw_call("SET", "k", "v2", "KEEPTTL"), b"+OK\r\n")
        self.assertEqual(r.execute_command("PEXPIRETIME", "k"), at * 1000 + 5)
        self.assertEqual(r.get("k"), "v2")
        r.set("k", "v3")
        self.assertEqual(r.ttl("k"), -1)
        # An EXAT in the past: OK, and the key is gone.
        self.assertEqual(self.raw_call("SET", "k", "v", "EXAT", "1"), b"+OK\r\n")
        self.assertIsNone(r.get("k"))

    def test_setnx_setex_psetex(self):
        r = self.r
        self.assertEqual(self.raw_call("SETNX", "k", "a"), b":1\r\n")
        self.assertEqual(self.raw_call("SETNX", "k", "b"), b":0\r\n")
        self.assertEqual(r.get("k"), "a")
        self.assertEqual(self.raw_call("SETEX", "k", "100", "c"), b"+OK\r\n")
        self.assertEqual(r.ttl("k"), 100)
        self.assertEqual(r.get("k"), "c")
        self.assertEqual(self.raw_call("PSETEX", "k", "100000", "d"), b"+OK\r\n")
        self.assertTrue(99000 < r.pttl("k") <= 100000)
        self.assertError("ERR invalid expire time in 'setex' command", "SETEX", "k", "0", "v")
        self.assertError("ERR invalid expire time in 'setex' command", "SETEX", "k", "-1", "v")
        self.assertError("ERR invalid expire time in 'psetex' command", "PSETEX", "k", "0", "v")
        self.assertError(NOT_INT, "SETEX", "k", "x", "v")
        self.assertError(arity("setex"), "SETEX", "k", "10")
        self.assertError(arity("setnx"), "SETNX", "k")

    def test_getset_getdel_getex(self):
        r = self.r
        self.assertEqual(self.raw_call("GETSET", "k", "a"), b"$-1\r\n")
        self.assertEqual(self.raw_call("GETSET", "k", "b"), b"$1\r\na\r\n")
        r.expire("k", 100)
        r.getset("k", "c")
        self.assertEqual(r.ttl("k"), -1)  # GETSET drops the TTL
        self.assertEqual(self.raw_call("GETDEL", "k"), b"$1\r\nc\r\n")
        self.assertEqual(self.raw_call("GETDEL", "k"), b"$-1\r\n")
        r.set("k", "v")
        self.assertEqual(self.raw_call("GETEX", "k"), b"$1\r\nv\r\n")
        self.assertEqual(r.ttl("k"), -1)
        self.assertEqual(self.raw_call("GETEX", "k", "EX", "100"), b"$1\r\nv\r\n")
        self.assertEqual(r.ttl("k"), 100)
        self.assertEqual(self.raw_call("GETEX", "k", "PERSIST"), b"$1\r\nv\r\n")
        self.assertEqual(r.ttl("k"), -1)
        self.assertEqual(self.raw_call("GETEX", "k", "PX", "50000"), b"$1\r\nv\r\n")
        self.assertTrue(49000 < r.pttl("k") <= 50000)
        at = int(time.time()) + 300
        self.assertEqual(self.raw_call("GETEX", "k", "EXAT", at), b"$1\r\nv\r\n")
        self.assertEqual(r.execute_command("EXPIRETIME", "k"), at)
        self.assertEqual(self.raw_call("GETEX", "k", "PXAT", at * 1000), b"$1\r\nv\r\n")
        self.assertEqual(self.raw_call("GETEX", "missing", "EX", "10"), b"$-1\r\n")
        self.assertError(SYNTAX, "GETEX", "k", "EX", "10", "PERSIST")
        self.assertError(SYNTAX, "GETEX", "k", "BOGUS")
        self.assertError(SYNTAX, "GETEX", "k", "EX")
        self.assertError("ERR invalid expire time in 'getex' command", "GETEX", "k", "EX", "0")
        self.assertError(NOT_INT, "GETEX", "k", "EX", "ten")
        self.assertError(arity("getdel"), "GETDEL")
        self.assertError(arity("getset"), "GETSET", "k")
        self.assertEqual(self.raw_call("GETEX", "k", "EXAT", "1"), b"$1\r\nv\r\n")
        self.assertIsNone(r.get("k"))

    def test_mget_mset_msetnx(self):
        k = self.k
        r = self.r
        self.assertEqual(self.raw_call("MSET", k("a"), "1", k("b"), "2"), b"+OK\r\n")
        self.assertEqual(self.raw_call("MGET", k("a"), k("nokey"), k("b")),
                         b"*3\r\n$1\r\n1\r\n$-1\r\n$1\r\n2\r\n")
        self.assertEqual(self.raw_call("MSETNX", k("c"), "3", k("a"), "9"), b":0\r\n")
        self.assertIsNone(r.get(k("c")))
        self.assertEqual(r.get(k("a")), "1")
        self.assertEqual(self.raw_call("MSETNX", k("c"), "3", k("d"), "4"), b":1\r\n")
        self.assertEqual(r.mget(k("c"), k("d")), ["3", "4"])
        r.expire(k("a"), 100)
        r.mset({k("a"): "x"})
        self.assertEqual(r.ttl(k("a")), -1)
        self.assertEqual(self.raw_call("MSET", k("dup"), "1", k("dup"), "2"), b"+OK\r\n")
        self.assertEqual(r.get(k("dup")), "2")
        self.assertError(arity("mset"), "MSET", k("a"))
        self.assertError(arity("mset"), "MSET", k("a"), "1", k("b"))
        self.assertError(arity("msetnx"), "MSETNX", k("a"), "1", k("b"))
        self.assertError(arity("mget"), "MGET")

    def test_append_strlen(self):
        r = self.r
        self.assertEqual(self.raw_call("APPEND", "k", "hello"), b":5\r\n")
        self.assertEqual(self.raw_call("APPEND", "k", " world"), b":11\r\n")
        self.assertEqual(r.get("k"), "hello world")
        self.assertEqual(self.raw_call("STRLEN", "k"), b":11\r\n")
        self.assertEqual(self.raw_call("STRLEN", "nokey"), b":0\r\n")
        r.set("n", 123)
        self.assertEqual(self.raw_call("STRLEN", "n"), b":3\r\n")
        self.assertEqual(self.raw_call("APPEND", "n", "45"), b":5\r\n")
        self.assertEqual(r.incr("n"), 12346)
        r.set("t", "v", ex=100)
        r.append("t", "w")
        self.assertEqual(r.ttl("t"), 100)  # APPEND keeps the TTL
        self.assertError(arity("append"), "APPEND", "k")
        self.assertError(arity("strlen"), "STRLEN")

    def test_getrange_substr_setrange(self):
        r = self.r
        r.set("k", "This is a string")
        for args, want in [((0, 3), "This"), ((-3, -1), "ing"), ((0, -1), "This is a string"),
                           ((10, 100), "string"), ((5, 3), ""), ((-100, 3), "This"),
                           ((100, 200), ""), ((-1, -5), "")]:
            self.assertEqual(r.getrange("k", *args), want, args)
        self.assertEqual(self.raw_call("GETRANGE", "nokey", "0", "-1"), b"$0\r\n\r\n")
        self.assertEqual(self.raw_call("SUBSTR", "k", "0", "3"), b"$4\r\nThis\r\n")
        r.set("n", 12345)
        self.assertEqual(r.getrange("n", 1, 2), "23")
        self.assertError(NOT_INT, "GETRANGE", "k", "a", "1")
        self.assertError(arity("getrange"), "GETRANGE", "k", "0")
        r.set("s", "Hello World")
        self.assertEqual(self.raw_call("SETRANGE", "s", "6", "Redis"), b":11\r\n")
        self.assertEqual(r.get("s"), "Hello Redis")
        self.assertEqual(self.raw_call("SETRANGE", "pad", "5", "x"), b":6\r\n")
        self.assertEqual(self.raw_call("GET", "pad"), b"$6\r\n\x00\x00\x00\x00\x00x\r\n")
        self.assertEqual(self.raw_call("SETRANGE", "none", "3", ""), b":0\r\n")
        self.assertEqual(r.exists("none"), 0)
        self.assertEqual(self.raw_call("SETRANGE", "s", "100", ""), b":11\r\n")
        self.assertError("ERR offset is out of range", "SETRANGE", "s", "-1", "x")
        self.assertError("ERR string exceeds maximum allowed size (proto-max-bulk-len)",
                         "SETRANGE", "s", "536870912", "x")
        self.assertError(NOT_INT, "SETRANGE", "s", "x", "x")

    def test_incr_decr(self):
        r = self.r
        self.assertEqual(self.raw_call("INCR", "c"), b":1\r\n")
        self.assertEqual(self.raw_call("INCRBY", "c", "10"), b":11\r\n")
        self.assertEqual(self.raw_call("DECR", "c"), b":10\r\n")
        self.assertEqual(self.raw_call("DECRBY", "c", "20"), b":-10\r\n")
        self.assertEqual(self.raw_call("INCRBY", "c", "-5"), b":-15\r\n")
        self.assertEqual(self.raw_call("GET", "c"), b"$3\r\n-15\r\n")
        self.assertEqual(self.raw_call("DECR", "d"), b":-1\r\n")
        r.set("c", "  5")
        self.assertError(NOT_INT, "INCR", "c")
        r.set("c", "5 ")
        self.assertError(NOT_INT, "INCR", "c")
        r.set("c", "abc")
        self.assertError(NOT_INT, "INCR", "c")
        r.set("c", "1.5")
        self.assertError(NOT_INT, "INCR", "c")
        r.set("c", "9223372036854775808")
        self.assertError(NOT_INT, "INCR", "c")
        r.set("c", "9223372036854775807")
        self.assertError("ERR increment or decrement would overflow", "INCR", "c")
        self.assertError("ERR increment or decrement would overflow", "INCRBY", "c", "1")
        r.set("c", "-9223372036854775808")
        self.assertError("ERR increment or decrement would overflow", "DECR", "c")
        self.assertEqual(r.get("c"), "-9223372036854775808")
        r.set("c", "0")
        self.assertError("ERR decrement would overflow", "DECRBY", "c", "-9223372036854775808")
        self.assertError(NOT_INT, "INCRBY", "c", "1x")
        self.assertError(NOT_INT, "INCRBY", "c", "99999999999999999999")
        self.assertError(arity("incr"), "INCR")
        self.assertError(arity("incrby"), "INCRBY", "c")
        r.set("t", 5, ex=100)
        r.incr("t")
        self.assertEqual(r.ttl("t"), 100)  # INCR keeps the TTL
        r.set("lead", "007")
        self.assertError(NOT_INT, "INCR", "lead")

    def test_incrbyfloat(self):
        r = self.r
        self.assertEqual(self.raw_call("INCRBYFLOAT", "f", "10.5"), b"$4\r\n10.5\r\n")
        self.assertEqual(self.raw_call("INCRBYFLOAT", "f", "0.1"), b"$4\r\n10.6\r\n")
        self.assertEqual(self.raw_call("INCRBYFLOAT", "f", "-5"), b"$3\r\n5.6\r\n")
        r.set("f", "5.0e3")
        self.assertEqual(self.raw_call("INCRBYFLOAT", "f", "2.0e2"), b"$4\r\n5200\r\n")
        r.set("i", 3)
        self.assertEqual(self.raw_call("INCRBYFLOAT", "i", "1"), b"$1\r\n4\r\n")
        self.assertEqual(r.incr("i"), 5)
        self.assertError("ERR value is not a valid float", "INCRBYFLOAT", "f", "abc")
        r.set("s", "abc")
        self.assertError("ERR value is not a valid float", "INCRBYFLOAT", "s", "1")
        r.set("f", "1e4932")  # Redis computes in long double: this sum overflows it
        self.assertError("ERR increment would produce NaN or Infinity",
                         "INCRBYFLOAT", "f", "1e4932")
        r.set("f", "1")
        self.assertError("ERR increment would produce NaN or Infinity", "INCRBYFLOAT", "f", "inf")
        self.assertError(arity("incrbyfloat"), "INCRBYFLOAT", "f")

    def test_lcs(self):
        k = self.k
        r = self.r
        r.mset({k("key1"): "ohmytext", k("key2"): "mynewtext"})
        self.assertEqual(self.raw_call("LCS", k("key1"), k("key2")), b"$6\r\nmytext\r\n")
        self.assertEqual(self.raw_call("LCS", k("key1"), k("key2"), "LEN"), b":6\r\n")
        self.assertEqual(
            self.raw_call("LCS", k("key1"), k("key2"), "IDX"),
            b"*4\r\n$7\r\nmatches\r\n*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n"
            b"*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n$3\r\nlen\r\n:6\r\n")
        self.assertEqual(
            self.raw_call("LCS", k("key1"), k("key2"), "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"),
            b"*4\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n"
            b"$3\r\nlen\r\n:6\r\n")
        self.assertEqual(self.raw_call("LCS", k("key1"), k("nokey")), b"$0\r\n\r\n")
        self.assertError("ERR If you want both the length and indexes, please just use IDX.",
                         "LCS", k("key1"), k("key2"), "LEN", "IDX")
        self.assertError(SYNTAX, "LCS", k("key1"), k("key2"), "BOGUS")
        self.assertError(arity("lcs"), "LCS", k("key1"))

    def test_unknown_command(self):
        self.assertError("ERR unknown command 'foo', with args beginning with: 'a' 'b' ",
                         "foo", "a", "b")
        self.assertError("ERR unknown command 'nosuch', with args beginning with: ", "nosuch")

    def test_redis_cli(self):
        self.assertEqual(self.cli("SET", "k", "hello"), "OK\n")
        self.assertEqual(self.cli("GET", "k"), "hello\n")
        self.assertEqual(self.cli("GET", "nokey"), "\n")
        self.assertEqual(self.cli("INCR", "n"), "1\n")
        self.assertEqual(self.cli("MGET", "k", "nokey", "n"), "hello\n\n1\n")
        self.assertEqual(self.cli("INCR", "k"), "ERR value is not an integer or out of range\n\n")
        self.assertEqual(self.cli("GET"),
                         "ERR wrong number of arguments for 'get' command\n\n")


class RedisReference(StringCases, itest.RedisCase):
    pass


class Ruvio(StringCases, itest.RuvioCase):
    pass


class RuvioProxy(StringCases, itest.RuvioProxyCase):
    def test_mget_mset_msetnx(self):
        # MSET and MGET are split between the owners: a is worker 1's, b and c worker 0's.
        self.assertEqual([itest.owner(x) for x in "abc"], [1, 0, 0])
        self.assertEqual(self.raw_call("MSET", "a", "1", "b", "2"), b"+OK\r\n")
        self.assertEqual(self.raw_call("MGET", "a", "nokey", "b"),
                         b"*3\r\n$1\r\n1\r\n$-1\r\n$1\r\n2\r\n")
        # MSETNX must stay atomic, so it is never split: across owners it is CROSSSLOT
        # (also the malformed one: its keys a and b are found before the argument count is
        # checked, as on a Redis Cluster node).
        self.assertError(self.CROSSSLOT, "MSETNX", "c", "3", "a", "9")
        self.assertError(self.CROSSSLOT, "MSETNX", "a", "1", "b")
        self.assertEqual(self.r.mget("a", "b", "c"), ["1", "2", None])
        self.r.flushall()
        # The whole test again with every key on one owner (worker 1): same replies.
        self.key_prefix = "{a}"
        super().test_mget_mset_msetnx()

    def test_lcs(self):
        # key1 (slot 9189) is worker 1's, key2 (slot 4998) worker 0's: CROSSSLOT.
        self.assertEqual((itest.owner("key1"), itest.owner("key2")), (1, 0))
        self.r.mset({"key1": "ohmytext", "key2": "mynewtext"})
        self.assertError(self.CROSSSLOT, "LCS", "key1", "key2")
        self.assertError(self.CROSSSLOT, "LCS", "key1", "key2", "LEN", "IDX")
        self.r.flushall()
        self.key_prefix = "{a}"
        super().test_lcs()


if __name__ == "__main__":
    unittest.main()
