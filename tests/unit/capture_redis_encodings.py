#!/usr/bin/env python3
"""Prints the listpack and intset blobs that redis-server produces for the fixed inputs that
tests/unit/test_listpack.cpp and test_intset.cpp compare against (the hex hard-coded there).

usage: redis-server --port P --save '' --appendonly no &   # redis 7.0.15
       tests/unit/capture_redis_encodings.py P
It FLUSHALLs that server, sets rdbcompression no (so no blob is LZF-compressed), runs the
commands below, DUMPs each key and unwraps the RDB payload: [type][body][u16 version][u64 crc].
Types: 11 intset, 16 hash listpack, 17 zset listpack (body: one RDB string), 18 quicklist 2
(body: node count, then per node a container (2 = packed) and an RDB string).
"""
import socket
import sys

COMMANDS = [
    ["RPUSH", "lint", "0", "127", "128", "-1", "-4096", "4095", "4096", "-4097", "32767",
     "32768", "-32768", "-32769", "8388607", "8388608", "-8388608", "-8388609"],
    ["RPUSH", "lint2", "2147483647", "2147483648", "-2147483648", "-2147483649",
     "9223372036854775807", "-9223372036854775808", "9223372036854775808",
     "-9223372036854775809"],
    ["RPUSH", "lnc", "+1", "01", "-0", " 1", "1 ", "00", "-", "0x10", "1.0",
     "12345678901234567890", ""],
    ["RPUSH", "lstr", "a", "x" * 63, "y" * 64],
    ["RPUSH", "l4095", "a" * 4095],
    ["RPUSH", "l4096", "b" * 4096],
    ["RPUSH", "lbig", "c" * 16378],
    ["RPUSH", "lbig2", "d" * 16377],
    ["HSET", "h", "name", "ruvio", "n", "42", "neg", "-7", "big", "1234567890123"],
    ["ZADD", "z", "1", "a", "2.5", "b", "-3", "c", "1e20", "d"],
    ["SADD", "s16", "3", "1", "2", "-32768", "32767"],
    ["SADD", "s32", "70000", "-5", "1"],
    ["SADD", "s64", "5000000000", "-1", "0"],
]


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.f = self.s.makefile("rb")

    @staticmethod
    def encode(*args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        return out

    def reply(self):
        line = self.f.readline()
        t, rest = line[:1], line[1:-2]
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self.f.read(n + 2)[:-2]
        if t in (b"+", b":"):
            return rest
        if t == b"-":
            raise RuntimeError(rest)
        if t == b"*":
            return [self.reply() for _ in range(int(rest))]
        raise RuntimeError(line)

    def cmd(self, *args):
        self.s.sendall(self.encode(*args))
        return self.reply()

    def pipeline(self, cmds):
        self.s.sendall(b"".join(self.encode(*c) for c in cmds))
        return [self.reply() for _ in cmds]


def rdb_len(b, i):
    kind = b[i] >> 6
    if kind == 0:
        return b[i] & 63, i + 1
    if kind == 1:
        return ((b[i] & 63) << 8) | b[i + 1], i + 2
    if b[i] == 0x80:
        return int.from_bytes(b[i + 1:i + 5], "big"), i + 5
    if b[i] == 0x81:
        return int.from_bytes(b[i + 1:i + 9], "big"), i + 9
    raise RuntimeError("encoded RDB string (int or LZF): is rdbcompression off?")


def rdb_str(b, i):
    n, i = rdb_len(b, i)
    return b[i:i + n], i + n


def blobs(dump):
    t = dump[0]
    if t in (11, 16, 17):
        return t, [rdb_str(dump, 1)[0]]
    if t == 18:
        nodes, i = rdb_len(dump, 1)
        out = []
        for _ in range(nodes):
            container, i = rdb_len(dump, i)
            assert container == 2, "plain node"
            blob, i = rdb_str(dump, i)
            out.append(blob)
        return t, out
    raise RuntimeError("RDB type %d" % t)


def fnv1a(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
    return h


def main():
    c = Conn(int(sys.argv[1]))
    c.cmd("FLUSHALL")
    c.cmd("CONFIG", "SET", "rdbcompression", "no")
    for command in COMMANDS:
        c.cmd(*command)
        key = command[1]
        t, bl = blobs(c.cmd("DUMP", key))
        enc = c.cmd("OBJECT", "ENCODING", key).decode()
        for n, b in enumerate(bl):
            print("%s type=%d enc=%s node=%d len=%d" % (key, t, enc, n, len(b)))
            if len(b) <= 600:
                print("  " + b.hex())
            else:
                print("  head %s tail %s" % (b[:16].hex(), b[-16:].hex()))
    # The 65535-count boundary: field/value pairs 32767 (65534 entries) and 32768 (65536).
    c.cmd("CONFIG", "SET", "hash-max-listpack-entries", "100000")
    for key, pairs in (("h32767", 32767), ("h32768", 32768)):
        c.pipeline([["HSET", key, "f%d" % i, str(i * 37 - 500000)] for i in range(pairs)])
        b = blobs(c.cmd("DUMP", key))[1][0]
        print("%s len=%d head=%s fnv1a=%016x" % (key, len(b), b[:6].hex(), fnv1a(b)))
    c.cmd("HDEL", "h32768", "f32767")
    b = blobs(c.cmd("DUMP", "h32768"))[1][0]
    print("h32768 after HDEL len=%d head=%s fnv1a=%016x" % (len(b), b[:6].hex(), fnv1a(b)))


if __name__ == "__main__":
    main()
