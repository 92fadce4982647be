"""Bitmaps, BITFIELD and HyperLogLog on bad input and at their limits: each case's exact
reply, asserted against the reference redis-server and against Ruvio (1 worker and the
2-worker proxy port), and the key is unchanged after every refused command. The randomized
comparison is tests/differential/test_bits_differential.py; this file pins the error texts,
the 512 MB offset cap and the corrupt-HLL answers one by one."""

import unittest

import itest

OFFSET = "ERR bit offset is not an integer or out of range"
BIT = "ERR bit is not an integer or out of range"
NOTINT = "ERR value is not an integer or out of range"
BFTYPE = ("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not "
          "supported but i64 is.")
NOTHLL = "WRONGTYPE Key is not a valid HyperLogLog string value."
CORRUPT = "INVALIDOBJ Corrupted HLL object detected"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"

EMPTY_HLL = b"HYLL\x01" + b"\x00" * 10 + b"\x80" + b"\x7f\xff"


class BitsCases:
    def setUp(self):
        super().setUp()
        self.b = self.k("bm")
        self.h = self.k("hll")
        self.r.set(self.b, "ab")

    def unchanged(self):
        self.assertEqual(self.cmd("GET", self.b), b"$2\r\nab\r\n")

    def test_setbit_bad_offsets_and_values(self):
        for off in ("-1", "4294967296", "99999999999", "abc", "1.5", "", " 1", "+1"):
            self.assertError(OFFSET, "SETBIT", self.b, off, "1")
            self.assertError(OFFSET, "GETBIT", self.b, off)
        for val in ("2", "-1", "x", "", "1 "):
            self.assertError(BIT, "SETBIT", self.b, "0", val)
        self.unchanged()
        self.assertEqual(self.raw_call("SETBIT", self.b, "15", "1"), b":0\r\n")
        self.assertEqual(self.raw_call("GET", self.b), b"$2\r\nac\r\n")

    def test_offset_cap_is_512_mb(self):
        # 4294967295 is the last bit of a 512 MB string: accepted (and not sent here, it would
        # allocate 512 MB); 4294967296 is refused. BITFIELD's #N counts N * width.
        self.assertError(OFFSET, "BITFIELD", self.b, "GET", "u8", "#536870912")
        self.assertError(OFFSET, "BITFIELD", self.b, "SET", "i64", "#67108864", "1")
        self.assertError(OFFSET, "BITFIELD", self.b, "GET", "u8", "#-1")
        self.assertError(OFFSET, "BITFIELD", self.b, "GET", "u8", "#")
        self.assertEqual(self.raw_call("BITFIELD", self.b, "GET", "u8", "#536870911"),
                         b"*1\r\n:0\r\n")
        self.unchanged()

    def test_bitfield_errors(self):
        for t in ("i65", "u64", "i0", "u0", "x8", "I8", "", "u", "i-1", "u08"):
            self.assertError(BFTYPE, "BITFIELD", self.b, "GET", t, "0")
        self.assertError("ERR Invalid OVERFLOW type specified", "BITFIELD", self.b,
                         "OVERFLOW", "NONE", "GET", "u8", "0")
        self.assertError("ERR syntax error", "BITFIELD", self.b, "FOO")
        self.assertError("ERR syntax error", "BITFIELD", self.b, "SET", "u8", "0")
        self.assertError(NOTINT, "BITFIELD", self.b, "INCRBY", "u8", "0", "x")
        # Every operation parses before any runs: the first SET is not applied.
        self.assertError(BFTYPE, "BITFIELD", self.b, "SET", "u8", "0", "1", "GET", "u64", "0")
        self.assertError("ERR BITFIELD_RO only supports the GET subcommand",
                         "BITFIELD_RO", self.b, "GET", "u8", "0", "SET", "u8", "0", "1")
        self.unchanged()

    def test_bitfield_overflow_modes(self):
        k = self.k("bf")
        self.assertEqual(self.raw_call(
            "BITFIELD", k, "SET", "u8", "0", "250", "INCRBY", "u8", "0", "10",
            "OVERFLOW", "SAT", "INCRBY", "u8", "0", "300", "INCRBY", "i8", "8", "-300",
            "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "1", "SET", "i4", "20", "8",
            "GET", "i64", "0", "GET", "u63", "1"),
            b"*8\r\n:0\r\n:4\r\n:255\r\n:-128\r\n$-1\r\n$-1\r\n:-36028797018963968\r\n"
            b":9187343239835811840\r\n")
        self.assertEqual(self.raw_call("GET", k), b"$3\r\n\xff\x80\x00\r\n")

    def test_bitcount_bitpos_errors(self):
        self.assertError("ERR syntax error", "BITCOUNT", self.b, "0")
        self.assertError("ERR syntax error", "BITCOUNT", self.b, "0", "1", "WORD")
        self.assertError(NOTINT, "BITCOUNT", self.b, "a", "1")
        self.assertError("ERR The bit argument must be 1 or 0.", "BITPOS", self.b, "2")
        self.assertError("ERR syntax error", "BITPOS", self.b, "1", "0", "1", "WORD")
        self.assertEqual(self.raw_call("BITCOUNT", self.k("nokey"), "a", "b"), b":0\r\n")
        self.assertEqual(self.raw_call("BITPOS", self.k("nokey"), "0", "a"), b":0\r\n")
        self.assertEqual(self.raw_call("BITCOUNT", self.b, "-1", "-2"), b":0\r\n")
        self.assertEqual(self.raw_call("BITCOUNT", self.b, "1", "14", "BIT"), b":6\r\n")
        self.assertEqual(self.raw_call("BITPOS", self.b, "0", "0", "-1", "BIT"), b":0\r\n")

    def test_bitop_errors(self):
        self.assertError("ERR syntax error", "BITOP", "NAND", self.k("d"), self.b)
        self.assertError("ERR BITOP NOT must be called with a single source key.",
                         "BITOP", "NOT", self.k("d"), self.b, self.b)
        self.r.rpush(self.k("list"), "x")
        self.assertError(WRONGTYPE, "BITOP", "AND", self.k("d"), self.b, self.k("list"))
        self.assertEqual(self.raw_call("EXISTS", self.k("d")), b":0\r\n")

    def test_wrongtype(self):
        self.r.rpush(self.k("list"), "x")
        for args in (("SETBIT", "0", "1"), ("GETBIT", "0"), ("BITCOUNT",), ("BITPOS", "1"),
                     ("BITFIELD", "GET", "u8", "0"), ("BITFIELD", "SET", "u8", "0", "1")):
            self.assertError(WRONGTYPE, args[0], self.k("list"), *args[1:])
        self.assertError(WRONGTYPE, "PFADD", self.k("list"), "a")
        self.assertError(WRONGTYPE, "PFCOUNT", self.k("list"))

    def test_hll_not_an_hll(self):
        self.r.set(self.k("int"), 12345)
        for k in (self.b, self.k("int")):
            self.assertError(NOTHLL, "PFADD", k, "a")
            self.assertError(NOTHLL, "PFCOUNT", k)
            self.assertError(NOTHLL, "PFMERGE", self.h, k)
            self.assertError(NOTHLL, "PFDEBUG", "ENCODING", k)
        self.assertEqual(self.raw_call("EXISTS", self.h), b":0\r\n")
        self.unchanged()
        # Wrong magic, unknown encoding, a dense body of the wrong size.
        for blob in (b"HYLX" + bytes(14), b"HYLL\x02" + bytes(13), b"HYLL\x00" + bytes(20)):
            self.r.set(self.h, blob)
            self.assertError(NOTHLL, "PFCOUNT", self.h)
            self.assertEqual(self.raw_call("STRLEN", self.h), b":%d\r\n" % len(blob))

    def test_corrupt_sparse_hll(self):
        # Runs that cover 16385 registers, and a valid HLL with its cache marked stale.
        bad = b"HYLL\x01" + b"\x00" * 10 + b"\x80" + b"\x7f\xff\x00"
        self.r.set(self.h, bad)
        self.assertError(CORRUPT, "PFCOUNT", self.h)
        self.assertError(CORRUPT, "PFCOUNT", self.h, self.h)
        self.assertError(CORRUPT, "PFMERGE", self.k("dst"), self.h)
        self.assertError(CORRUPT, "PFDEBUG", "TODENSE", self.h)
        self.assertEqual(self.raw_call("GET", self.h), b"$19\r\n" + bad + b"\r\n")
        self.assertEqual(self.raw_call("EXISTS", self.k("dst")), b":0\r\n")
        self.r.set(self.h, EMPTY_HLL)
        self.assertEqual(self.raw_call("PFCOUNT", self.h), b":0\r\n")
        self.assertEqual(self.raw_call("GET", self.h),
                         b"$18\r\nHYLL\x01" + b"\x00" * 11 + b"\x7f\xff\r\n")

    def test_hll_bytes_and_debug(self):
        self.assertEqual(self.raw_call("PFADD", self.h, "a", "b", "c"), b":1\r\n")
        self.assertEqual(self.raw_call("PFADD", self.h, "a"), b":0\r\n")
        self.assertEqual(self.raw_call("PFCOUNT", self.h), b":3\r\n")
        self.assertEqual(self.raw_call("PFDEBUG", "ENCODING", self.h), b"+sparse\r\n")
        self.assertEqual(self.raw_call("PFDEBUG", "DECODE", self.h),
                         b"$44\r\nZ:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603\r\n")
        self.assertError("ERR Unknown PFDEBUG subcommand 'FOO'", "PFDEBUG", "FOO", self.h)
        self.assertError("ERR The specified key does not exist", "PFDEBUG", "ENCODING",
                         self.k("nokey"))
        self.assertEqual(self.raw_call("PFDEBUG", "TODENSE", self.h), b":1\r\n")
        self.assertEqual(self.raw_call("PFDEBUG", "TODENSE", self.h), b":0\r\n")
        self.assertError("ERR HLL encoding is not sparse", "PFDEBUG", "DECODE", self.h)
        self.assertEqual(self.raw_call("STRLEN", self.h), b":12304\r\n")
        self.assertEqual(self.raw_call("PFCOUNT", self.h), b":3\r\n")

    def test_pfselftest(self):
        self.assertEqual(self.raw_call("PFSELFTEST"), b"+OK\r\n")


class RedisReference(BitsCases, itest.RedisCase):
    pass


class Ruvio(BitsCases, itest.RuvioCase):
    pass


class RuvioProxy(BitsCases, itest.RuvioProxyCase):
    key_prefix = "{p}"


if __name__ == "__main__":
    unittest.main()
