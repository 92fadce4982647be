"""Seeded random command generator for the bitmap / BITFIELD / HyperLogLog differential test
(test_bits_differential.py). Everything depends only on the seed; every reply is compared
byte for byte ("exact"), GET of an HLL key included: the HLL bytes must be Redis's.

Bitmaps: SETBIT/GETBIT at offsets in the first bytes, around the 1024-byte embedded/external
string boundary and far out (unaligned, #N forms for BITFIELD), bad offsets and values;
BITCOUNT/BITPOS with byte and bit ranges, negative ends, empty ranges; BITOP of every op over
missing, integer-encoded and long sources; BITFIELD GET/SET/INCRBY of every width i1..i64 and
u1..u63 under WRAP, SAT and FAIL with values at the limits, bad types (i65, u64, i0, x8);
BITFIELD_RO. Their neighbours: SET (integers too), GET, APPEND, SETRANGE, STRLEN, INCR, DEL,
a list key for WRONGTYPE.

HyperLogLog: PFADD of a few elements or bulks of hundreds (the sparse -> dense crossing at
hll-sparse-max-bytes 3000), PFCOUNT of one key (cached and not) and of several, PFMERGE of
sparse and dense sources into new and existing keys, PFDEBUG ENCODING/DECODE/TODENSE/GETREG,
GET of the bytes, and corrupt HLL blobs written with SET (bad magic, bad encoding, truncated
and overflowing sparse runs, a dense body of the wrong size): INVALIDOBJ or the WRONGTYPE
HLL error, as Redis answers. A corrupt body always ends on a whole opcode: where Redis reads
half an XZERO past the end of its string (the sds terminator) its answers are those of an
out-of-bounds read, not a contract.
"""

import cmdgen
from cmdgen import Cmd

BIT_KEYS = [b"b0", b"b1", b"b2", b"{t}b", b"{t}c", b"bm\x00\xff"]
HLL_KEYS = [b"h0", b"h1", b"h2", b"h3", b"{t}h", b"{t}i"]
LIST_KEY = b"alist"
KEYS = BIT_KEYS + HLL_KEYS + [LIST_KEY, b"missing"]

BAD_INTS = [b"abc", b"1.5", b"", b" 1", b"9223372036854775808", b"-9223372036854775809",
            b"+1", b"01", b"0x10"]
EDGE = [b"0", b"-1", b"1", b"127", b"128", b"-128", b"255", b"256", b"32767", b"-32768",
        b"65535", b"2147483647", b"-2147483648", b"4294967295", b"9223372036854775807",
        b"-9223372036854775808", b"4611686018427387904", b"-4611686018427387905"]
BAD_TYPES = [b"i65", b"u64", b"i0", b"u0", b"x8", b"I8", b"U8", b"i", b"u", b"", b"i-1",
             b"u08", b"i 8", b"u99999999999999999999"]
ELEMS = [b"a", b"b", b"c", b"", b"foo", b"\x00", b"\xff" * 3, b"x" * 100]

WEIGHTS = {
    "setbit": 14, "getbit": 6, "bitcount": 8, "bitpos": 8, "bitop": 4, "bitfield": 14,
    "bitfield_ro": 3, "strings": 7, "pfadd": 16, "pfcount": 8, "pfmerge": 5, "pfdebug": 3,
    "hll_get": 5, "corrupt": 2, "wrongtype": 1,
}


def whole_opcodes(body):
    """`body` with a trailing half XZERO completed (see bkey)."""
    i = 0
    while i < len(body):
        i += 2 if (body[i] & 0xC0) == 0x40 else 1
    return body + b"\x00" if i > len(body) else body


class Generator(cmdgen.Generator):
    def __init__(self, seed):
        super().__init__(seed, WEIGHTS, "b_")
        self.elem_base = 0

    # ---- primitives -------------------------------------------------------------------

    def bkey(self):
        # Never an HLL key: a byte edit can leave a sparse body ending in half an XZERO,
        # which Redis reads past its end (the sds terminator) -- corrupt blobs come from
        # b_corrupt instead, and are whole opcodes.
        if self.chance(0.05):
            return self.pick([LIST_KEY, b"missing"])
        return self.pick(BIT_KEYS)

    def hkey(self):
        if self.chance(0.04):
            return self.pick(KEYS)
        return self.pick(HLL_KEYS)

    def num(self, lo, hi):
        return b"%d" % self.r.randint(lo, hi)

    def bit_offset(self):
        x = self.r.random()
        if x < 0.55:
            return self.num(0, 300)
        if x < 0.75:
            return self.num(8000, 8400)  # around the 1024-byte embedded string limit
        if x < 0.9:
            return self.num(0, 40000)
        if x < 0.95:
            return self.pick([b"4294967296", b"-1", b"99999999999", b"9223372036854775807"])
        return self.pick(BAD_INTS)

    def range_arg(self):
        x = self.r.random()
        if x < 0.7:
            return self.num(-20, 40)
        if x < 0.9:
            return self.num(-9000, 9000)
        if x < 0.96:
            return self.pick(EDGE)
        return self.pick(BAD_INTS)

    def unit(self):
        if self.chance(0.05):
            return self.pick([b"bits", b"x", b""])
        return self.case(self.pick(["BIT", "BYTE"]))

    def bf_type(self):
        if self.chance(0.04):
            return self.pick(BAD_TYPES)
        sign = self.pick([b"i", b"u"])
        if self.chance(0.5):
            bits = self.pick([1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64 if sign == b"i" else 63])
        else:
            bits = self.r.randint(1, 64 if sign == b"i" else 63)
        return sign + b"%d" % bits

    def bf_offset(self):
        x = self.r.random()
        if x < 0.5:
            return self.num(0, 200)
        if x < 0.7:
            return b"#" + self.num(0, 40)
        if x < 0.85:
            return self.num(8100, 8300)
        if x < 0.92:
            return self.num(0, 20000)
        if x < 0.96:
            # Bad offsets only: a valid far one (#536870912 of i7 is 448 MB) would make every
            # later GET of the key cost seconds.
            return self.pick([b"#-1", b"#", b"-1", b"4294967296", b"#9223372036854775807",
                              b"#4294967296", b"#-9223372036854775808"])
        return self.pick(BAD_INTS)

    def bf_value(self):
        x = self.r.random()
        if x < 0.5:
            return self.num(-300, 300)
        if x < 0.85:
            return self.pick(EDGE)
        if x < 0.97:
            return self.num(-(2**63), 2**63 - 1)
        return self.pick(BAD_INTS)

    def elem(self):
        x = self.r.random()
        if x < 0.7:
            return b"e%d" % self.r.randint(0, 3000)
        if x < 0.9:
            return b"%d" % self.r.randint(-10**9, 10**9)
        return self.pick(ELEMS)

    # ---- bitmaps --------------------------------------------------------------------------

    def b_setbit(self):
        if self.chance(0.03):
            val = self.pick([b"2", b"-1", b"x", b"", b"01", b"1 "])
        else:
            val = self.pick([b"0", b"1", b"1"])
        return Cmd([self.case("SETBIT"), self.bkey(), self.bit_offset(), val])

    def b_getbit(self):
        return Cmd([self.case("GETBIT"), self.bkey(), self.bit_offset()])

    def b_bitcount(self):
        args = [self.case("BITCOUNT"), self.bkey()]
        x = self.r.random()
        if x < 0.3:
            pass
        elif x < 0.6:
            args += [self.range_arg(), self.range_arg()]
        elif x < 0.95:
            args += [self.range_arg(), self.range_arg(), self.unit()]
        else:
            args += [self.range_arg()]  # a start without an end: syntax error
        return Cmd(args)

    def b_bitpos(self):
        bit = self.pick([b"0", b"1", b"1", b"0"]) if self.chance(0.97) else self.pick(
            [b"2", b"-1", b"x"])
        args = [self.case("BITPOS"), self.bkey(), bit]
        n = self.r.randint(0, 3)
        if n >= 1:
            args.append(self.range_arg())
        if n >= 2:
            args.append(self.range_arg())
        if n == 3:
            args.append(self.unit())
        if self.chance(0.02):
            args += [b"extra", b"args"]
        return Cmd(args)

    def b_bitop(self):
        op = self.pick(["AND", "OR", "XOR", "NOT"]) if self.chance(0.97) else "NAND"
        n = 1 if op == "NOT" and self.chance(0.9) else self.r.randint(1, 4)
        return Cmd([self.case("BITOP"), self.case(op), self.bkey()] +
                   [self.bkey() for _ in range(n)])

    def bitfield_ops(self, read_only):
        ops = []
        for _ in range(self.r.randint(1, 5)):
            x = self.r.random()
            if x < 0.12 and not read_only:
                ops += [self.case("OVERFLOW"),
                        self.case(self.pick(["WRAP", "SAT", "FAIL"]))
                        if self.chance(0.97) else b"NONE"]
            elif x < 0.45 or read_only:
                ops += [self.case("GET"), self.bf_type(), self.bf_offset()]
            elif x < 0.7:
                ops += [self.case("SET"), self.bf_type(), self.bf_offset(), self.bf_value()]
            else:
                ops += [self.case("INCRBY"), self.bf_type(), self.bf_offset(), self.bf_value()]
        if self.chance(0.03):
            ops = ops[:-1]  # a truncated operation: syntax error
        if self.chance(0.02):
            ops.append(self.pick([b"FOO", b"GET", b"OVERFLOW"]))
        return ops

    def b_bitfield(self):
        return Cmd([self.case("BITFIELD"), self.bkey()] + self.bitfield_ops(False))

    def b_bitfield_ro(self):
        ops = self.bitfield_ops(True)
        if self.chance(0.1):
            ops += [b"SET", b"u8", b"0", b"1"]  # BITFIELD_RO refuses writes
        return Cmd([self.case("BITFIELD_RO"), self.bkey()] + ops)

    def b_strings(self):
        k = self.bkey()
        x = self.r.random()
        if x < 0.2:
            return Cmd([b"GET", k])
        if x < 0.35:
            return Cmd([b"SET", k, self.pick([b"12345", b"-7", b"0", b"foobar", b"\xff\x00",
                                               b"x" * self.r.randint(1000, 1100)])])
        if x < 0.45:
            return Cmd([b"APPEND", k, self.pick([b"\x01", b"ab", b"\x00" * 10])])
        if x < 0.55:
            return Cmd([b"SETRANGE", k, self.num(0, 1100), self.pick([b"\xff", b"hello"])])
        if x < 0.7:
            return Cmd([b"STRLEN", k])
        if x < 0.8:
            return Cmd([b"INCR", k])
        if x < 0.9:
            return Cmd([b"DEL", k])
        return Cmd([b"EXISTS", k])

    # ---- HyperLogLog ----------------------------------------------------------------------

    def b_pfadd(self):
        key = self.hkey() if self.chance(0.96) else self.bkey()
        x = self.r.random()
        if x < 0.75:
            n = self.r.randint(0, 6)
        elif x < 0.95:
            n = self.r.randint(50, 300)  # sparse keys cross 3000 bytes after a few of these
        else:
            n = self.r.randint(1000, 2000)
        return Cmd([self.case("PFADD"), key] + [self.elem() for _ in range(n)])

    def b_pfcount(self):
        n = 1 if self.chance(0.6) else self.r.randint(2, 4)
        return Cmd([self.case("PFCOUNT")] + [self.hkey() for _ in range(n)])

    def b_pfmerge(self):
        n = self.r.randint(0, 3)
        return Cmd([self.case("PFMERGE"), self.hkey()] + [self.hkey() for _ in range(n)])

    def b_pfdebug(self):
        sub = self.pick(["ENCODING", "DECODE", "TODENSE", "ENCODING", "DECODE", "FOO"])
        if self.chance(0.05):
            sub = "GETREG"
        return Cmd([self.case("PFDEBUG"), self.case(sub), self.hkey()])

    def b_hll_get(self):
        return Cmd([b"GET", self.hkey()])

    def b_corrupt(self):
        k = self.hkey()
        r = self.r
        x = r.random()
        card = bytes(r.randrange(256) for _ in range(8))
        if x < 0.15:
            blob = self.pick([b"HYL", b"HYLX" + bytes(12), b"HYLL\x02" + bytes(11),
                              b"HYLL\x00" + bytes(11) + bytes(100), b"hyll\x01" + bytes(11)])
        elif x < 0.6:
            # A sparse body of random opcodes: short, overflowing, truncated XZERO.
            body = bytes(r.randrange(256) for _ in range(r.randint(0, 12)))
            if r.random() < 0.5:
                body = b"\x7f\xff" + body
            body = whole_opcodes(body)
            blob = b"HYLL\x01\x00\x00\x00" + card + body
        elif x < 0.8:
            # Nearly valid: an empty sparse HLL split in two runs, one off by a few registers.
            a = r.randint(1, 16383)
            b = 16384 - a + r.choice([-2, -1, 1, 2, 0])
            b = max(1, min(b, 16384))
            runs = [((a - 1) >> 8) | 0x40, (a - 1) & 0xff, ((b - 1) >> 8) | 0x40, (b - 1) & 0xff]
            blob = b"HYLL\x01\x00\x00\x00" + card + bytes(runs)
        else:
            # A dense body: random registers (values up to 63), the right size.
            blob = b"HYLL\x00\x00\x00\x00" + card + bytes(r.randrange(256) for _ in range(12288))
        return Cmd([b"SET", k, blob])

    def b_wrongtype(self):
        if self.chance(0.5):
            return Cmd([b"RPUSH", LIST_KEY, b"x"])
        return Cmd([self.pick([b"SETBIT", b"PFADD", b"BITCOUNT", b"PFCOUNT"]), LIST_KEY] +
                   ([b"1", b"1"] if self.chance(0.5) else []))
