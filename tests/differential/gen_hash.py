"""The hash family's command generator for the differential test (test_hash_differential.py).

Extends cmdgen.Generator (its primitives and its generic commands: DEL, EXISTS, TYPE, OBJECT
ENCODING, EXPIRE, RENAME, COPY, GET/SET for wrong types) with HSET … HSCAN over a few keys,
so that hashes grow past hash-max-listpack-entries (128) and -value (64), shrink again under
HDEL (Redis 7.0 never converts back), are deleted and rebuilt.

Compare kinds beyond cmdgen's:
  pairs     HGETALL: a hashtable's order is the table's, so the field/value pairs are compared
            as a multiset; errors and empty replies exactly.
  multiset  HKEYS/HVALS: the same for their elements.
  hscan     HSCAN from cursor 0: the runner iterates each server to its end and compares the
            union of pairs; from another cursor only the shape (cursors are positions in
            different tables).
  hrand   HRANDFIELD with a count: sizes, distinctness and membership in the hash, which the
          runner reads (HGETALL) right before.
"""

import cmdgen

# Few keys, so that hashes get big. Both owners of a 2-worker Ruvio hold some of them.
HKEYS = [b"h%d" % i for i in range(6)] + [b"{tag}a", b"{tag}b", b"k1", b"k2"]

LONG_FIELD = b"L" * 70  # > hash-max-listpack-value


class HashGenerator(cmdgen.Generator):
    KEY_POOL = HKEYS
    # Read around by the runner: not in a pipeline.
    unpipelined = ("lcs", "hrand", "hrand1", "hscan")

    def __init__(self, seed):
        super().__init__(seed, WEIGHTS)

    # ---- primitives --------------------------------------------------------------------

    def field(self):
        x = self.r.random()
        if x < 0.55:
            return b"f%d" % self.r.randint(0, 199)
        if x < 0.70:
            return b"%d" % self.r.randint(-50, 300)  # integer-looking: stored as ints
        if x < 0.75:
            return self.pick(cmdgen.NONCANONICAL_INTS + cmdgen.EDGE_INTS)
        if x < 0.80:
            return b""
        if x < 0.85:
            return bytes(self.r.randrange(256) for _ in range(self.r.randint(1, 12)))
        if x < 0.88:
            return self.ascii(60, 70)  # around the 64-byte threshold
        if x < 0.89:
            return LONG_FIELD + self.ascii(0, 100)
        return self.ascii(1, 10)

    def hvalue(self):
        x = self.r.random()
        if x < 0.85:
            v = self.value()
            return v if len(v) <= 64 else v[:64]  # mostly stay a listpack
        if x < 0.92:
            return self.ascii(60, 70)
        return self.value()

    def fields(self, lo=1, hi=4):
        return [self.field() for _ in range(self.r.randint(lo, hi))]

    # ---- hash commands -----------------------------------------------------------------

    def g_hset(self):
        name = self.pick(["HSET", "HSET", "HMSET"])
        n = self.r.randint(1, 4) if self.chance(0.93) else self.r.randint(20, 140)
        args = [self.case(name), self.key()]
        for _ in range(n):
            args += [self.field(), self.hvalue()]
        if self.chance(0.02):
            args.append(self.field())  # odd count: arity error
        return cmdgen.Cmd(args)

    def g_hsetnx(self):
        return cmdgen.Cmd([self.case("HSETNX"), self.key(), self.field(), self.hvalue()])

    def g_hget(self):
        return cmdgen.Cmd([self.case("HGET"), self.key(), self.field()])

    def g_hmget(self):
        return cmdgen.Cmd([self.case("HMGET"), self.key()] + self.fields(1, 6))

    def g_hdel(self):
        if self.chance(0.05):  # a bulk delete: big hashes come down under the threshold
            fs = [b"f%d" % i for i in range(self.r.randint(0, 100), 200)]
            return cmdgen.Cmd([self.case("HDEL"), self.key()] + fs)
        return cmdgen.Cmd([self.case("HDEL"), self.key()] + self.fields(1, 5))

    def g_hlen(self):
        return cmdgen.Cmd([self.case("HLEN"), self.key()])

    def g_hstrlen(self):
        return cmdgen.Cmd([self.case("HSTRLEN"), self.key(), self.field()])

    def g_hexists(self):
        return cmdgen.Cmd([self.case("HEXISTS"), self.key(), self.field()])

    def g_hgetall(self):
        name = self.pick(["HGETALL", "HKEYS", "HVALS"])
        return cmdgen.Cmd([self.case(name), self.key()], "pairs" if name == "HGETALL" else "multiset")

    def g_hincrby(self):
        x = self.r.random()
        if x < 0.8:
            by = b"%d" % self.r.randint(-1000, 1000)
        elif x < 0.9:
            by = self.pick(cmdgen.EDGE_INTS)
        else:
            by = self.pick(cmdgen.BAD_NUMBERS + cmdgen.NONCANONICAL_INTS)
        f = self.field() if self.chance(0.6) else b"n%d" % self.r.randint(0, 3)
        return cmdgen.Cmd([self.case("HINCRBY"), self.key(), f, by])

    def g_hincrbyfloat(self):
        x = self.r.random()
        if x < 0.6:
            by = b"%d.%d" % (self.r.randint(-100, 100), self.r.randint(0, 99))
        elif x < 0.85:
            by = self.pick(cmdgen.FLOATS)
        else:
            by = self.pick(cmdgen.BAD_NUMBERS + [b"1e300", b"-1e300", b"5e-324"])
        f = self.field() if self.chance(0.6) else b"n%d" % self.r.randint(0, 3)
        return cmdgen.Cmd([self.case("HINCRBYFLOAT"), self.key(), f, by])

    def g_hrandfield(self):
        x = self.r.random()
        if x < 0.2:
            return cmdgen.Cmd([self.case("HRANDFIELD"), self.key()], "hrand1")
        if x < 0.85:
            count = b"%d" % self.r.choice([self.r.randint(-20, 20), self.r.randint(-300, 300)])
        else:
            # Huge negative counts would make both servers send billions of fields.
            count = self.pick(cmdgen.BAD_NUMBERS + [b"0", b"9223372036854775807",
                                                    b"-9223372036854775808", b"4611686018427387904",
                                                    b"4294967296"])
        args = [self.case("HRANDFIELD"), self.key(), count]
        if self.chance(0.5):
            args.append(self.case("WITHVALUES"))
        if self.chance(0.05):
            args.append(self.pick([b"WITHVALUES", b"FOO"]))
        if self.chance(0.03):
            args[3:] = [b"WITHVALUE"]
        return cmdgen.Cmd(args, "hrand")

    def g_hscan(self):
        args = [self.case("HSCAN"), self.key()]
        x = self.r.random()
        if x < 0.9:
            args.append(b"0")
        elif x < 0.95:
            args.append(b"%d" % self.r.randint(1, 1000))
        else:
            args.append(self.pick([b"abc", b"-1", b"18446744073709551616", b"1.5", b""]))
        opts = []
        if self.chance(0.7):
            opts.append(["COUNT", b"1000" if self.chance(0.8) else self.int_arg(-1, 20, 0.2)])
        if self.chance(0.4):
            opts.append(["MATCH", self.pick([b"f1*", b"*", b"f?", b"[0-9]*", b"*L*", b"", b"f"])])
        if self.chance(0.04):
            opts.append(self.pick([["FOO"], ["COUNT"], ["NOVALUES"], ["MATCH"]]))
        self.r.shuffle(opts)
        for o in opts:
            args.append(self.case(o[0]))
            args.extend(o[1:])
        return cmdgen.Cmd(args, "hscan")

    def g_harity(self):
        name = self.pick(["HSET", "HGET", "HMGET", "HDEL", "HLEN", "HSTRLEN", "HEXISTS", "HKEYS",
                          "HINCRBY", "HINCRBYFLOAT", "HSETNX", "HMSET"])
        n = self.r.randint(0, 2)
        if name in ("HLEN", "HKEYS"):
            n = self.pick([0, 2])
        return cmdgen.Cmd([self.case(name)] + [self.key() for _ in range(n)])

    def g_wrongtype(self):
        """A string under a key the hash commands use, and list/get on a hash."""
        if self.chance(0.5):
            return cmdgen.Cmd([self.case("SET"), self.key(), self.value()])
        return cmdgen.Cmd([self.case(self.pick(["GET", "APPEND", "INCR", "STRLEN"])), self.key()]
                          + ([b"x"] if self.chance(0.2) else []))


WEIGHTS = {
    "hset": 90, "hsetnx": 15, "hget": 40, "hmget": 20, "hdel": 40, "hlen": 15, "hstrlen": 10,
    "hexists": 12, "hgetall": 25, "hincrby": 25, "hincrbyfloat": 20, "hrandfield": 20,
    "hscan": 15, "harity": 4, "wrongtype": 4,
    "del": 5, "exists": 6, "type": 8, "object": 25, "expire": 6, "ttl": 4, "persist": 2,
    "rename": 5, "copy": 5, "select": 1,
}
