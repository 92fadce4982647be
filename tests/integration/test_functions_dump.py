"""FUNCTION DUMP / RESTORE between redis-server 7.0 and Ruvio, both directions: the payload
is Redis 7.0's own format (RDB FUNCTION2 records, LZF strings, version 10, CRC64), so a
dump of either restores on the other with every library and flag intact; the same library
dumps to the same bytes on both; malformed payloads get Redis's exact errors and change
nothing."""

import os
import struct
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))
import itest  # noqa: E402
import sidebyside  # noqa: E402
from resp_raw import parse  # noqa: E402


def crc64(data):
    """Redis's crc64 (Jones polynomial, reflected), written from its definition."""
    poly = 0x95AC9329AC4BC9B5
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
    return crc


def payload(records, version=10):
    body = records + struct.pack("<H", version)
    return body + struct.pack("<Q", crc64(body))


def raw_string(s):
    assert len(s) < 64
    return bytes([len(s)]) + s


LIBS = [
    "#!lua name=lib%d\n"
    "redis.register_function('f%d', function(keys, args) return 'v%d' end)\n"
    "redis.register_function{function_name='g%d', callback=function() return %d end, "
    "flags={'no-writes', 'allow-stale'}, description='lib %d, second function'}\n" % ((i,) * 6)
    for i in range(4)
]


class DumpRestore(sidebyside.SideBySideCase):
    def setUp(self):
        self.a = itest.Raw(self.ref.port)
        self.b = itest.Raw(self.cand.port)
        for c in (self.a, self.b):
            self.addCleanup(c.close)
            self.assertEqual(c.call("FUNCTION", "FLUSH"), b"+OK\r\n")

    def listing(self, c):
        libs = parse(c.call("FUNCTION", "LIST", "WITHCODE"))
        out = []
        for lib in libs:
            d = dict(zip(lib[::2], lib[1::2]))
            d[b"functions"] = sorted(tuple(f) for f in d[b"functions"])
            out.append(sorted(d.items()))
        return sorted(out)

    def test_same_bytes_for_one_library(self):
        for c in (self.a, self.b):
            self.assertEqual(c.call("FUNCTION", "LOAD", LIBS[0]), b"$4\r\nlib0\r\n")
        self.assertEqual(self.b.call("FUNCTION", "DUMP"), self.a.call("FUNCTION", "DUMP"))

    def round_trip(self, src, dst):
        for code in LIBS:
            src.call("FUNCTION", "LOAD", code)
        dump = parse(src.call("FUNCTION", "DUMP"))
        self.assertEqual(dst.call("FUNCTION", "RESTORE", dump), b"+OK\r\n")
        self.assertEqual(self.listing(dst), self.listing(src))
        self.assertEqual(dst.call("FCALL", "F3", "0"), b"$2\r\nv3\r\n")
        self.assertEqual(dst.call("FCALL_RO", "g2", "0"), b":2\r\n")
        # APPEND collides, REPLACE and FLUSH do not
        self.assertRegex(dst.call("FUNCTION", "RESTORE", dump, "APPEND"),
                         rb"^-ERR Library lib[0-3] already exists\r\n$")
        self.assertEqual(dst.call("FUNCTION", "RESTORE", dump, "REPLACE"), b"+OK\r\n")
        dst.call("FUNCTION", "DELETE", "lib1")
        self.assertEqual(dst.call("FUNCTION", "RESTORE", dump, "FLUSH"), b"+OK\r\n")
        self.assertEqual(self.listing(dst), self.listing(src))

    def test_redis_to_ruvio(self):
        self.round_trip(self.a, self.b)

    def test_ruvio_to_redis(self):
        self.round_trip(self.b, self.a)

    def test_command_info_and_docs(self):
        """COMMAND INFO / DOCS of FCALL, FCALL_RO and each FUNCTION subcommand (the container
        lists its subcommands in Redis's dict order), byte for byte, RESP2 and RESP3."""
        names = ["fcall", "fcall_ro"] + ["function|" + s for s in (
            "delete", "dump", "flush", "help", "kill", "list", "load", "restore", "stats")]
        for proto in ("2", "3"):
            for c in (self.a, self.b):
                c.call("HELLO", proto)
            for n in names:
                for what in ("INFO", "DOCS"):
                    with self.subTest(name=n, what=what, proto=proto):
                        self.assertEqual(self.b.call("COMMAND", what, n),
                                         self.a.call("COMMAND", what, n))

    def test_malformed_payloads(self):
        code = LIBS[0].encode()
        cases = [
            payload(b""),  # no library: OK on both
            payload(b"\xf5" + raw_string(b"#!lua name=x\n")),  # no functions
            payload(b"\xf6" + raw_string(b"x")),  # pre-GA record, cut short
            # a whole pre-GA (7.0 RC) record: name, engine, description, code
            payload(b"\xf6" + raw_string(b"old") + raw_string(b"LUA") + b"\x01" +
                    raw_string(b"desc") +
                    raw_string(b"redis.register_function('o', function() return 1 end)")),
            payload(b"\xf6" + raw_string(b"old") + raw_string(b"LUA") + b"\x00" +
                    raw_string(b"return 1")),
            payload(b"\xf6" + raw_string(b"old") + raw_string(b"LUA") + b"\x01"),
            payload(b"\x00" + raw_string(b"x")),  # a key type, not a function
            payload(b"\xf5\x3f"),  # string longer than what is left
            payload(b"\xf5\xc4"),  # unknown string encoding
            payload(b"\xf5\xc0\x07"),  # an integer string: no metadata
            payload(b"\xf5\xc3\x05\x40\x00abcde"),  # LZF that does not inflate
            payload(b"\xf5\x90"),  # unknown length encoding
            payload(b"\xf5" + raw_string(b"#!lua name=x\n"), version=11),  # newer RDB
            payload(b"\xf5\x80\x00\x00\x00\x04ab"),  # 32-bit length past the end
            payload(b"\xf5" + bytes([0x40 | (len(code) >> 8), len(code) & 0xFF]) + code
                    + b"\xf5" + bytes([0x40 | (len(code) >> 8), len(code) & 0xFF]) + code),
            payload(b"\xf5" + raw_string(b"#!lua name=y\nlocal x = ") + b"\xf5\x01a"),
            b"\x00" * 9,
        ]
        for p in cases:
            with self.subTest(payload=p):
                want = self.a.call("FUNCTION", "RESTORE", p)
                self.assertEqual(self.b.call("FUNCTION", "RESTORE", p), want)
                self.assertEqual(self.b.call("FUNCTION", "LIST"), self.a.call("FUNCTION", "LIST"))
                for c in (self.a, self.b):
                    c.call("FUNCTION", "FLUSH")
        self.assertEqual(self.b.call("PING"), b"+PONG\r\n")


if __name__ == "__main__":
    unittest.main()
