"""OBJECT ENCODING of strings, differential (issue 10): a seeded stream of the commands that
make or modify a string (SET and its forms, MSET, GETSET, APPEND, SETRANGE, SETBIT, BITFIELD
SET/INCRBY/GET and OVERFLOW FAIL, BITOP, INCR/DECR/INCRBYFLOAT, PFADD/PFMERGE, GETEX, EXPIRE,
PERSIST, RENAME, COPY, GETDEL), each write followed by OBJECT ENCODING of its key and often
by GET, goes to Ruvio and to redis-server 7.0.15; every reply must be byte-identical. Redis
answers "raw" for any string edited in place (dbUnshareStringValue: SETBIT and BITFIELD even
when no bit changes, SETRANGE, APPEND, PFADD's new key, BITOP's result), "embstr" for a value
of at most 44 bytes made whole by SET, INCRBYFLOAT, RESTORE-like paths, "int" for canonical
integers, and keeps the encoding across RENAME, COPY, EXPIRE and PERSIST. At 1 worker and
through the proxy port of a 2-worker Ruvio (the multi-key commands use one hash tag).

Env: RUVIO_DIFF_SEED (printed; replays a run), RUVIO_STRENC_DIFF_COMMANDS (default 6000).
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import dump_data  # noqa: E402
import test_differential as td  # noqa: E402
from cmdgen import Cmd, GenBase  # noqa: E402

KEYS = [b"{s}%d" % i for i in range(6)]


class Generator(GenBase):
    KEY_POOL = KEYS

    def __init__(self, seed):
        super().__init__(seed, WEIGHTS)

    def value(self):
        c = self.r.randrange(9)
        if c == 0:
            return b"%d" % self.r.randint(-10**6, 10**6)
        if c == 1:
            return self.pick([b"0", b"-0", b"007", b"9223372036854775807",
                              b"9223372036854775808", b"1.5", b"1e3", b" 1", b"", b"10000"])
        if c == 2:
            return b"x" * self.pick([43, 44, 45, 46, 64, 100])
        return b"v" * self.r.randint(1, 20)

    def follow(self, key):
        self.pending.append(Cmd([b"OBJECT", b"ENCODING", key]))
        if self.chance(0.4):
            self.pending.append(Cmd([b"GET", key]))

    def write(self, key, args):
        self.follow(key)
        return Cmd(args)

    def g_set(self):
        k = self.key()
        c = self.r.randrange(6)
        v = self.value()
        if c == 0:
            return self.write(k, [b"SET", k, v])
        if c == 1:
            return self.write(k, [b"SET", k, v, b"KEEPTTL"])
        if c == 2:
            return self.write(k, [b"SETEX", k, b"100", v])
        if c == 3:
            return self.write(k, [b"GETSET", k, v])
        if c == 4:
            k2 = self.key()
            self.follow(k2)
            return self.write(k, [b"MSET", k, v, k2, self.value()])
        return self.write(k, [b"SETNX", k, v])

    def g_append(self):
        k = self.key()
        return self.write(k, [b"APPEND", k, self.pick([b"", b"1", b"ab", b"x" * 30])])

    def g_setrange(self):
        k = self.key()
        return self.write(k, [b"SETRANGE", k, b"%d" % self.r.randrange(50),
                              self.pick([b"", b"z", b"12", b"y" * 10])])

    def g_setbit(self):
        k = self.key()
        return self.write(k, [b"SETBIT", k, b"%d" % self.r.randrange(400),
                              self.pick([b"0", b"1"])])

    def g_bitfield(self):
        k = self.key()
        ops = []
        for _ in range(self.r.randint(1, 3)):
            c = self.r.randrange(4)
            t = self.pick([b"u8", b"i5", b"u16"])
            off = b"%d" % self.r.randrange(300)
            if c == 0:
                ops += [b"SET", t, off, b"%d" % self.r.randrange(200)]
            elif c == 1:
                ops += [b"INCRBY", t, off, b"%d" % self.r.randint(-300, 300)]
            elif c == 2:
                ops += [b"GET", t, off]
            else:
                ops += [b"OVERFLOW", self.pick([b"FAIL", b"SAT", b"WRAP"])]
        return self.write(k, [self.pick([b"BITFIELD", b"BITFIELD", b"BITFIELD_RO"]), k, *ops])

    def g_bitop(self):
        d = self.key()
        op = self.pick([b"AND", b"OR", b"XOR", b"NOT"])
        srcs = [self.key() for _ in range(1 if op == b"NOT" else self.r.randint(1, 3))]
        return self.write(d, [b"BITOP", op, d, *srcs])

    def g_incr(self):
        k = self.key()
        c = self.r.randrange(4)
        if c == 0:
            return self.write(k, [b"INCR", k])
        if c == 1:
            return self.write(k, [b"DECRBY", k, b"%d" % self.r.randint(-5, 5)])
        return self.write(k, [b"INCRBYFLOAT", k, self.pick([b"1", b"0.5", b"-2.25", b"1e3",
                                                             b"0"])])

    def g_hll(self):
        k = self.key()
        if self.chance(0.7):
            return self.write(k, [b"PFADD", k, *[b"e%d" % self.r.randrange(50)
                                                 for _ in range(self.r.randint(0, 3))]])
        return self.write(k, [b"PFMERGE", k, self.key()])

    def hll_blob(self):
        """A short sparse HLL (16-byte header + opcodes, 18 to ~50 bytes: embedded, most at
        most 44 bytes, the embstr limit), its cache valid (possibly a made-up value) or stale."""
        regs = sorted(set(self.r.randrange(16384) for _ in range(self.pick([0, 1, 2, 5, 10]))))
        body, pos = b"", 0

        def zeros(n):
            return bytes([n - 1]) if n <= 64 else bytes([0x40 | (n - 1) >> 8, (n - 1) & 0xFF])
        for reg in regs:
            if reg > pos:
                body += zeros(reg - pos)
            body += bytes([0x80 | (self.r.randrange(32) << 2)])  # VAL v, one register
            pos = reg + 1
        if pos < 16384:
            body += zeros(16384 - pos)
        card = self.pick([0, len(regs), 7])
        cache = card.to_bytes(8, "little")
        if self.chance(0.5):
            cache = cache[:7] + b"\x80"  # stale: PFCOUNT recomputes
        return b"HYLL\x01\x00\x00\x00" + cache + body

    def g_hll_embedded(self):
        """An HLL that arrives embedded (SET, SETNX, RESTORE, COPY of one), then a PF* command:
        Redis unshares it (dbUnshareStringValue) in PFADD, single-key PFCOUNT, PFMERGE's
        destination and PFDEBUG, so OBJECT ENCODING says "raw" after them, even when nothing
        changes; a source of PFMERGE or of a multi-key PFCOUNT stays as it is."""
        k = self.key()
        blob = self.hll_blob()
        c = self.r.randrange(4)
        if c == 0:
            seq = [Cmd([b"SET", k, blob])]
        elif c == 1:
            seq = [Cmd([b"DEL", k]), Cmd([b"SETNX", k, blob])]
        else:
            body = b"\x00" + bytes([len(blob)]) + blob  # RDB string, 6-bit length
            seq = [Cmd([b"RESTORE", k, b"0", dump_data.with_footer(body), b"REPLACE"])]
        seq.append(Cmd([b"OBJECT", b"ENCODING", k]))
        other = self.key()
        also = []  # other keys whose encoding is read after the command
        c = self.r.randrange(9)
        if c == 0:
            cmd = [b"PFADD", k]
        elif c == 1:
            cmd = [b"PFADD", k, *[b"e%d" % self.r.randrange(50)
                                  for _ in range(self.r.randint(1, 3))]]
        elif c in (2, 3):
            cmd = [b"PFCOUNT", k]
        elif c == 4:
            cmd, also = [b"PFCOUNT", k, other], [other]
        elif c == 5:
            cmd = [b"PFMERGE", k, *([other] if self.chance(0.5) else [])]
        elif c == 6:
            cmd, also = [b"PFMERGE", other, k], [other]
        elif c == 7:
            cmd = [b"PFDEBUG", self.pick([b"ENCODING", b"DECODE", b"TODENSE", b"NOSUCH"]), k]
        else:
            cmd = [b"APPEND", k, b""]
        seq += [Cmd(cmd), Cmd([b"OBJECT", b"ENCODING", k])]
        if self.chance(0.4):
            seq.append(Cmd([b"GET", k]))
        seq += [Cmd([b"OBJECT", b"ENCODING", o]) for o in also]
        if self.chance(0.3):  # the cache path after the command
            seq += [Cmd([b"PFCOUNT", k]), Cmd([b"OBJECT", b"ENCODING", k])]
        self.pending += seq[1:]
        return seq[0]

    def g_keyspace(self):
        k = self.key()
        c = self.r.randrange(7)
        if c == 0:
            return self.write(k, [b"EXPIRE", k, b"100"])
        if c == 1:
            return self.write(k, [b"PERSIST", k])
        if c == 2:
            return self.write(k, [b"GETEX", k, self.pick([b"EX", b"PX"]), b"100000"])
        if c == 3:
            k2 = self.key()
            self.follow(k2)
            return self.write(k, [b"RENAME", k, k2])
        if c == 4:
            k2 = self.key()
            self.follow(k2)
            return self.write(k, [b"COPY", k, k2, b"REPLACE"])
        if c == 5:
            return self.write(k, [b"GETDEL", k])
        return self.write(k, [b"DEL", k])


WEIGHTS = {"set": 16, "append": 8, "setrange": 8, "setbit": 10, "bitfield": 8, "bitop": 5,
           "incr": 8, "hll": 6, "hll_embedded": 5, "keyspace": 12}


class StrEncRun(td.DiffRun):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.gen = Generator(self.seed)


def run_string_encoding(seed, count, workers, against="ruvio"):
    return td.run_pair(lambda rp, cp: StrEncRun(seed, rp, cp, against, count, workers), against,
                       workers)


class StringEncodingDifferentialTest(td.FamilyDiffTest, unittest.TestCase):
    family = "string encoding"
    keys = KEYS
    count_env = "RUVIO_STRENC_DIFF_COMMANDS"
    default_count = 6000

    def run_family(self, seed, count, workers, against):
        return run_string_encoding(seed, count, workers, against)

    def test_against_redis_2_workers(self):
        # The keys share one hash tag (BITOP, RENAME and COPY need one owner), so they live on
        # one worker: the run checks the proxy's forwarding of every command, not splitting.
        self.run_checked(2)


if __name__ == "__main__":
    unittest.main()
