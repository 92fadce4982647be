"""The stream family's command generator for the differential test
(test_stream_differential.py).

Extends cmdgen.Generator (its generic commands: DEL, EXISTS, TYPE, OBJECT ENCODING, EXPIRE,
RENAME, COPY) with XADD … XINFO over a few keys. Every ID is explicit (or "<ms>-*", which the
stream decides), so both servers hold the same entries: the generator keeps a guess of each
key's top ID and mostly adds above it, sometimes at or below it (the "equal or smaller"
error). Times in consumer groups are controlled: XCLAIM sets them with TIME 1 / IDLE 3600000
(far in the past) or leaves them "now", and every idle threshold is 0 or 1800000, so which
entries qualify never depends on how fast a server is.

Compare kinds beyond cmdgen's (test_stream_differential.py applies them):
  xtime   the reply with its wall-clock figures masked: XPENDING's idle per entry, XINFO
          CONSUMERS' idle, XINFO STREAM [FULL]'s seen-time and delivery times
          (radix-tree-nodes is compared: Ruvio counts Redis's rax nodes from its node masters).
"""

import cmdgen

# Few keys, both owners of a 2-worker Ruvio; {tag}a/{tag}b share a slot for multi-key XREAD.
SKEYS = [b"s%d" % i for i in range(5)] + [b"{tag}a", b"{tag}b"]
GROUPS = [b"g1", b"g2", b"g3"]
CONSUMERS = [b"c1", b"c2", b"c3", b"alice"]
FIELDS = [b"a", b"b", b"c", b"f1", b"123"]
BAD_IDS = [b"abc", b"1-", b"-1", b"1-a", b"18446744073709551616-0", b"0x10", b" 5", b"+5",
           b"05-1", b"", b"1--1", b"1-*", b"*", b"$", b">", b"-", b"+", b"(", b"(-",
           b"-18446744073709551615", b"1-18446744073709551616", b"1.5", b"1-2-3"]
MAX = b"18446744073709551615"


class StreamGenerator(cmdgen.Generator):
    KEY_POOL = SKEYS

    def __init__(self, seed):
        super().__init__(seed, WEIGHTS)
        self.top = {k: 0 for k in SKEYS}

    # ---- primitives --------------------------------------------------------------------

    def near_ms(self, k):
        return max(0, self.top[k] + self.r.randint(-6, 2))

    def id_arg(self, k, strict=True, allow_special=True):
        x = self.r.random()
        if x < 0.45:
            return b"%d-%d" % (self.near_ms(k), self.r.randint(0, 3))
        if x < 0.60:
            return b"%d" % self.near_ms(k)
        if x < 0.70 and allow_special and not strict:
            return self.pick([b"-", b"+"])
        if x < 0.76:
            return self.pick([b"0", b"0-0", b"0-1", MAX + b"-" + MAX, b"1-" + MAX])
        if x < 0.80:
            return self.pick(BAD_IDS)
        return b"%d-%d" % (self.r.randint(0, self.top[k] + 2), self.r.randint(0, 2))

    def range_arg(self, k, low):
        x = self.r.random()
        if x < 0.2:
            return b"-" if low else b"+"
        if x < 0.35:
            return b"(" + self.id_arg(k)
        return self.id_arg(k, strict=False)

    def svalue(self):
        x = self.r.random()
        if x < 0.03:
            return self.ascii(900, 1500)  # a few of these fill a node's 4096 bytes
        v = self.value()
        return v if len(v) <= 40 else v[:40]

    def fv(self):
        if self.chance(0.75):
            names = FIELDS[:2] if self.chance(0.7) else FIELDS[:self.r.randint(1, 5)]
        else:
            names = [self.pick(FIELDS + [b"x", b""]) for _ in range(self.r.randint(1, 4))]
        out = []
        for f in names:
            out += [f, self.svalue()]
        return out

    def trim_opts(self, k):
        strat = self.pick(["MAXLEN", "MINID"])
        out = [self.case(strat)]
        mod = self.pick([None, None, b"=", b"~"])
        if mod:
            out.append(mod)
        if strat == "MAXLEN":
            x = self.r.random()
            out.append(b"%d" % self.r.randint(0, 150) if x < 0.9 else
                       self.pick([b"-1", b"abc", b"0", b"9223372036854775808"]))
        else:
            out.append(self.id_arg(k))
        if mod == b"~" and self.chance(0.3) or self.chance(0.03):
            out += [self.case("LIMIT"), self.pick([b"0", b"1", b"50", b"100", b"-1", b"x"])]
        return out

    # ---- entries -----------------------------------------------------------------------

    def g_xadd(self):
        k = self.key()
        args = [self.case("XADD"), k]
        if self.chance(0.05):
            args.append(self.case("NOMKSTREAM"))
        if self.chance(0.25):
            args += self.trim_opts(k)
        x = self.r.random()
        if x < 0.75:
            ms = self.top[k] + self.r.randint(0, 2)
            self.top[k] = ms
            idv = b"%d-%d" % (ms, self.r.randint(0, 3)) if self.chance(0.7) else b"%d-*" % ms
        elif x < 0.85:
            ms = self.top[k] + self.r.randint(0, 1)
            self.top[k] = ms
            idv = b"%d" % ms
        else:
            idv = self.id_arg(k)
            if idv == b"*":  # a clock-made ID differs between two servers
                idv = b"0-0"
            if idv.endswith(MAX):
                # A top of <ms>-max makes a later "<ms>-*" fail with whichever text Redis's
                # stale errno picks (EDOM or not): not comparable.
                idv = b"0-1"
        args.append(idv)
        args += self.fv()
        if self.chance(0.02):
            args.append(b"odd")
        return cmdgen.Cmd(args)

    def g_xrange(self):
        k = self.key()
        rev = self.chance(0.4)
        lo, hi = self.range_arg(k, True), self.range_arg(k, False)
        args = [self.case("XREVRANGE" if rev else "XRANGE"), k] + ([hi, lo] if rev else [lo, hi])
        if self.chance(0.5):
            args += [self.case("COUNT"), self.pick([b"0", b"1", b"3", b"10", b"-1", b"x"])]
        if self.chance(0.02):
            args.append(b"FOO")
        return cmdgen.Cmd(args)

    def g_xlen(self):
        return cmdgen.Cmd([self.case("XLEN"), self.key()])

    def g_xdel(self):
        k = self.key()
        return cmdgen.Cmd([self.case("XDEL"), k] + [self.id_arg(k) for _ in range(
            self.r.randint(1, 4))])

    def g_xtrim(self):
        k = self.key()
        args = [self.case("XTRIM"), k] + self.trim_opts(k)
        if self.chance(0.03):
            args.append(b"FOO")
        return cmdgen.Cmd(args)

    def g_xread(self):
        ks = [self.key()] if self.chance(0.8) else [b"{tag}a", b"{tag}b"]
        args = [self.case("XREAD")]
        if self.chance(0.4):
            args += [self.case("COUNT"), self.pick([b"1", b"2", b"5", b"0", b"-1"])]
        if self.chance(0.05):
            args += [self.case("BLOCK"), self.pick([b"1", b"-1", b"x"])]
        args.append(self.case("STREAMS"))
        args += ks
        for k in ks:
            args.append(self.pick([b"$", b"0", self.id_arg(k)]))
        if self.chance(0.02):
            args.pop()
        return cmdgen.Cmd(args)

    def g_xsetid(self):
        k = self.key()
        args = [self.case("XSETID"), k, self.id_arg(k)]
        if self.chance(0.3):
            args += [self.case("ENTRIESADDED"), self.pick([b"0", b"5", b"100", b"-1"])]
        if self.chance(0.2):
            args += [self.case("MAXDELETEDID"), self.id_arg(k)]
        return cmdgen.Cmd(args)

    def g_xinfo(self):
        k = self.key()
        x = self.r.random()
        if x < 0.4:
            args = [self.case("XINFO"), self.case("STREAM"), k]
            if self.chance(0.4):
                args.append(self.case("FULL"))
                if self.chance(0.5):
                    args += [self.case("COUNT"), self.pick([b"0", b"2", b"5", b"-1"])]
        elif x < 0.7:
            args = [self.case("XINFO"), self.case("GROUPS"), k]
        elif x < 0.95:
            args = [self.case("XINFO"), self.case("CONSUMERS"), k, self.pick(GROUPS)]
        else:
            args = [self.case("XINFO"), self.pick([b"FOO", b"HELP", b"STREAM"])]
        return cmdgen.Cmd(args, "xtime")

    # ---- consumer groups ---------------------------------------------------------------

    def g_xgroup(self):
        k = self.key()
        g = self.pick(GROUPS)
        x = self.r.random()
        if x < 0.45:
            args = [self.case("XGROUP"), self.case("CREATE"), k, g,
                    self.pick([b"$", b"0", self.id_arg(k)])]
            if self.chance(0.4):
                args.append(self.case("MKSTREAM"))
            if self.chance(0.15):
                args += [self.case("ENTRIESREAD"), self.pick([b"0", b"3", b"-1", b"-2", b"x"])]
        elif x < 0.6:
            args = [self.case("XGROUP"), self.case("SETID"), k, g,
                    self.pick([b"$", b"0", self.id_arg(k, strict=False)])]
            if self.chance(0.3):
                args += [self.case("ENTRIESREAD"), self.pick([b"0", b"3", b"-1", b"x"])]
        elif x < 0.7:
            args = [self.case("XGROUP"), self.case("DESTROY"), k, g]
        elif x < 0.85:
            args = [self.case("XGROUP"), self.case("CREATECONSUMER"), k, g,
                    self.pick(CONSUMERS)]
        elif x < 0.97:
            args = [self.case("XGROUP"), self.case("DELCONSUMER"), k, g, self.pick(CONSUMERS)]
        else:
            args = [self.case("XGROUP"), self.pick([b"HELP", b"FOO", b"CREATE"])]
        return cmdgen.Cmd(args)

    def g_xreadgroup(self):
        ks = [self.key()] if self.chance(0.85) else [b"{tag}a", b"{tag}b"]
        args = [self.case("XREADGROUP"), self.case("GROUP"), self.pick(GROUPS),
                self.pick(CONSUMERS)]
        if self.chance(0.6):
            args += [self.case("COUNT"), self.pick([b"1", b"2", b"5", b"0"])]
        if self.chance(0.15):
            args.append(self.case("NOACK"))
        if self.chance(0.03):
            args += [self.case("BLOCK"), b"1"]
        args.append(self.case("STREAMS"))
        args += ks
        for k in ks:
            args.append(self.pick([b">", b">", b">", b"0", self.id_arg(k)]))
        return cmdgen.Cmd(args)

    def g_xack(self):
        k = self.key()
        return cmdgen.Cmd([self.case("XACK"), k, self.pick(GROUPS)] +
                          [self.id_arg(k) for _ in range(self.r.randint(1, 4))])

    def g_xpending(self):
        k = self.key()
        args = [self.case("XPENDING"), k, self.pick(GROUPS)]
        if self.chance(0.6):
            if self.chance(0.3):
                args += [self.case("IDLE"), self.pick([b"0", b"1800000", b"x"])]
            args += [self.range_arg(k, True), self.range_arg(k, False),
                     self.pick([b"10", b"1", b"3", b"0", b"-1", b"x"])]
            if self.chance(0.4):
                args.append(self.pick(CONSUMERS))
        return cmdgen.Cmd(args, "xtime")

    def g_xclaim(self):
        k = self.key()
        args = [self.case("XCLAIM"), k, self.pick(GROUPS), self.pick(CONSUMERS),
                self.pick([b"0", b"0", b"1800000", b"-5", b"x"])]
        args += [self.id_arg(k) for _ in range(self.r.randint(1, 4))]
        opts = []
        if self.chance(0.3):
            opts.append([self.pick(["IDLE", "TIME"]), self.pick([b"3600000", b"1", b"0"])])
        if self.chance(0.2):
            opts.append(["RETRYCOUNT", self.pick([b"0", b"3", b"-1"])])
        if self.chance(0.2):
            opts.append(["FORCE"])
        if self.chance(0.3):
            opts.append(["JUSTID"])
        if self.chance(0.1):
            opts.append(["LASTID", self.id_arg(k)])
        if self.chance(0.03):
            opts.append([self.pick(["FOO", "IDLE"])])
        self.r.shuffle(opts)
        for o in opts:
            args.append(self.case(o[0]))
            args += o[1:]
        return cmdgen.Cmd(args)

    def g_xautoclaim(self):
        k = self.key()
        args = [self.case("XAUTOCLAIM"), k, self.pick(GROUPS), self.pick(CONSUMERS),
                self.pick([b"0", b"1800000", b"-1", b"x"]), self.range_arg(k, True)]
        if self.chance(0.5):
            args += [self.case("COUNT"), self.pick([b"1", b"2", b"10", b"0", b"x"])]
        if self.chance(0.3):
            args.append(self.case("JUSTID"))
        return cmdgen.Cmd(args)

    def g_wrongtype(self):
        if self.chance(0.5):
            return cmdgen.Cmd([self.case("SET"), self.key(), self.value()])
        return cmdgen.Cmd([self.case(self.pick(["GET", "LPUSH", "HSET"])), self.key(), b"x"]
                          + ([b"y"] if self.chance(0.5) else []))


WEIGHTS = {
    "xadd": 120, "xrange": 35, "xlen": 10, "xdel": 20, "xtrim": 12, "xread": 20, "xsetid": 4,
    "xinfo": 20, "xgroup": 25, "xreadgroup": 35, "xack": 20, "xpending": 20, "xclaim": 20,
    "xautoclaim": 12, "wrongtype": 3,
    "del": 3, "exists": 4, "type": 5, "object": 8, "rename": 3, "copy": 4,
}
