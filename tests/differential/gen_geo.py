"""Seeded random command generator for the geo differential test (test_geo_differential.py),
in the style of gen_zset.py: everything depends only on the seed, never on replies.

Points come from clusters around centres that stress the geohash: the equator, both sides of
the antimeridian (lon +-180), the latitude limits (+-85.05112878, the poles cannot be encoded)
and above the +-66 / +-80 latitudes where the search uses coarser cells; plus uniform points
all over and the exact corner values. Searches use FROMLONLAT near those centres or
FROMMEMBER (also of missing members), radii and boxes from 0 to the whole earth in every unit
(any case), every WITH* option, ASC/DESC, COUNT with and without ANY, and the STORE forms
(GEORADIUS STORE/STOREDIST, GEOSEARCHSTORE [STOREDIST]); mixed with the zset neighbours that
see the stored scores (ZRANGE WITHSCORES, ZSCORE, ZREM, OBJECT ENCODING past 128 members) and
bad input (out-of-range coordinates, unknown units, COUNT 0/negative, ANY without COUNT, bad
box sizes, missing FROM*/BY*, wrong types).

Equal distances are generated on purpose (g_geoadd_tie, g_geosearch_tie and the shared
spots point() returns now and then): many members on one point, a FROMMEMBER centre on a
duplicated spot (distance 0 to several members), points placed symmetrically about 0,0 (the
geohash grid is symmetric there, so mirrored points decode to mirrored coordinates and tie
exactly from FROMLONLAT 0 0), searched with small COUNT values, ASC/DESC/none and ANY. Their
order is where Ruvio must reproduce Redis's algorithms exactly: the candidate order (the 9
cells in Redis's order, each cell's zset range by score then member), glibc's stable merge sort
when everything found is returned, and Redis's pqsort when COUNT cuts (pqsort.hpp).
Every reply is compared byte for byte ("exact"): even unsorted results come back in the
same order, the zset's own order cell after cell.

Multi-key forms (a STORE destination) use the hash-tagged keys, except a few on purpose that
a 2-worker proxy port answers with CROSSSLOT (the runner's crossslot()).
"""

from cmdgen import Cmd, GenBase

TAGGED = [b"{g}%d" % i for i in range(6)]
LOOSE = [b"ga", b"gb", b"gc", b"gd", b"geo:1", b"geo:2"]
KEYS = TAGGED + LOOSE
STRING_KEYS = [b"{g}str", b"gstr"]
PLAIN_ZSET = [b"{g}plain"]  # ZADD scores that are not geohashes: GEOPOS/GEOHASH decode them
# STOREDIST destinations: their scores are distances, which decode to a grid of cells near
# (-180, -85.05) where equal distances are common, so they are read but never searched.
DIST_KEYS = [b"{g}dist0", b"{g}dist1", b"gdist"]

LAT_MAX = 85.05112878
CENTRES = [(0.0, 0.0), (179.95, 10.0), (-179.97, -20.0), (180.0, 45.0), (-180.0, -45.0),
           (13.361389, 38.115556), (-73.98, 40.75), (10.0, 84.9), (-120.0, -84.95),
           (45.0, 70.0), (-60.0, -81.0), (0.0, LAT_MAX), (179.0, -LAT_MAX), (100.0, 66.5),
           (151.2, -33.86), (-0.0001, 51.5)]
EDGES = [(180, LAT_MAX), (-180, -LAT_MAX), (180, -LAT_MAX), (-180, LAT_MAX), (0, 0),
         (180, 0), (-180, 0), (0, LAT_MAX), (0, -LAT_MAX), (-179.99999999, 85.0511287)]
BAD_COORDS = [(b"180.0000001", b"0"), (b"-181", b"10"), (b"200", b"10"), (b"0", b"85.06"),
              (b"0", b"-85.05112879"), (b"0", b"90"), (b"inf", b"0"), (b"0", b"-inf"),
              (b"1e300", b"1"), (b"abc", b"0"), (b"0", b""), (b"nan", b"0"), (b" 1", b"2"),
              (b"0x10", b"1"), (b"-1e-400", b"1e400")]
UNITS = [b"m", b"km", b"ft", b"mi", b"M", b"KM", b"Km", b"FT", b"Mi"]
METERS = {b"m": 1.0, b"km": 1000.0, b"ft": 0.3048, b"mi": 1609.34}
BAD_UNITS = [b"parsec", b"", b"kms", b"meters", b"k"]
RADII_KM = [0, 0.001, 0.5, 5, 50, 200, 1000, 2500, 5000, 10000, 20000, 30000]
MEMBERS = [b"p%d" % i for i in range(260)]
ODD_MEMBERS = [b"1", b"-5", b"0", b"12345678901", b"", b"\x00\xff", b"bin\r\n\x00",
               "\u00e9".encode(), b"x" * 64, b"y" * 65]


def fmt(v):
    return repr(float(v)).encode() if not isinstance(v, bytes) else v


class GeoGenerator(GenBase):
    KEY_POOL = KEYS
    TAGGED_POOL = TAGGED

    def __init__(self, seed):
        super().__init__(seed, WEIGHTS)
        self.added = {}  # key -> members GEOADD gave it lately (FROMMEMBER picks among them)
        # A few shared points: point() returns one now and then, so members share a spot.
        self.spots = [self.fresh_point() for _ in range(6)]
        self.tied = {}  # key -> members put on a shared spot or a mirrored one

    # ---- values -------------------------------------------------------------------------

    def member(self):
        return self.pick_rare(0.05, ODD_MEMBERS, MEMBERS)

    def centre_member(self, key):
        """A member that is probably in `key` (the generator never reads replies)."""
        seen = self.added.get(key)
        if seen and self.chance(0.85):
            return self.pick(seen)
        return self.member()

    def remember(self, key, member):
        seen = self.added.setdefault(key, [])
        seen.append(member)
        if len(seen) > 30:
            del seen[0]

    def clamp(self, lon, lat):
        """Back into range by reflection at the limits, not by clamping: a clamped coordinate
        would put many points on one line, and two members in one cell tie on distance."""
        while not -180.0 <= lon <= 180.0:
            lon = 360.0 - lon if lon > 180.0 else -360.0 - lon
        while not -LAT_MAX <= lat <= LAT_MAX:
            lat = 2 * LAT_MAX - lat if lat > LAT_MAX else -2 * LAT_MAX - lat
        return lon, lat

    def point(self):
        """A point as text: one of the shared spots (a tie), clustered (most) or uniform."""
        if self.chance(0.08):
            return self.pick(self.spots)
        return self.fresh_point()

    def fresh_point(self):
        """A point as text: clustered (most) or uniform. The exact edges come only from
        g_geoadd_edge, each under its own member."""
        x = self.r.random()
        if x < 0.17:
            lon = self.r.uniform(-180, 180)
            lat = self.r.uniform(-LAT_MAX, LAT_MAX)
        else:
            clon, clat = self.pick(CENTRES)
            spread = self.pick([0.01, 0.1, 0.5, 2.0, 10.0])
            lon = clon + self.r.gauss(0, spread)
            lat = clat + self.r.gauss(0, spread / 2)
            if lon > 180:
                lon -= 360  # across the antimeridian
            if lon < -180:
                lon += 360
            lon, lat = self.clamp(lon, lat)
        digits = self.pick([6, 8, 12, 17])
        return (b"%.*f" % (digits, lon)), (b"%.*f" % (digits, lat))

    def centre(self):
        clon, clat = self.pick(CENTRES)
        if self.chance(0.7):
            clon, clat = self.clamp(clon + self.r.gauss(0, 0.5), clat + self.r.gauss(0, 0.3))
        # Six decimals must not round past a limit (out-of-range centres come from BAD_COORDS).
        clat = max(-LAT_MAX + 1e-6, min(LAT_MAX - 1e-6, clat))
        return b"%.6f" % clon, b"%.6f" % clat

    def radius(self):
        if self.chance(0.03):
            return self.pick([b"-1", b"abc", b"", b"nan", b"-0.001"]), self.pick(UNITS)
        if self.chance(0.03):
            return b"10", self.pick(BAD_UNITS)
        unit = self.pick(UNITS)
        km = self.pick(RADII_KM)
        v = km * 1000.0 / METERS[unit.lower()]
        if self.chance(0.3):
            v *= self.r.uniform(0.5, 1.5)
        return (b"%.3f" % v if self.chance(0.7) else b"%d" % int(v)), unit

    def box(self):
        if self.chance(0.04):
            return [*self.pick([(b"-1", b"10"), (b"10", b"-1"), (b"a", b"1"), (b"1", b"a"),
                                (b"a", b"-1"), (b"-1", b"a")]), self.pick(UNITS)]
        unit = self.pick(UNITS)
        w = self.pick(RADII_KM) * 2000.0 / METERS[unit.lower()] * self.r.uniform(0.3, 1.5)
        h = self.pick(RADII_KM) * 2000.0 / METERS[unit.lower()] * self.r.uniform(0.3, 1.5)
        return [b"%.2f" % w, b"%.2f" % h, self.pick(BAD_UNITS) if self.chance(0.02) else unit]

    def options(self, with_p):
        """Search options; the WITH* ones with probability `with_p` (a STORE form refuses
        them)."""
        opts = []
        if self.chance(with_p):
            for o in (b"WITHDIST", b"WITHCOORD", b"WITHHASH"):
                if self.chance(0.35):
                    opts.append(o if self.chance(0.8) else o.lower())
        if self.chance(0.5):
            opts.append(self.pick([b"ASC", b"DESC", b"asc"]))
        if self.chance(0.45):
            opts += [b"COUNT", self.pick([b"1", b"2", b"3", b"4", b"5", b"7", b"10", b"50",
                                          b"1000"])]
            if self.chance(0.35):
                opts.append(b"ANY")
        elif self.chance(0.02):
            opts.append(b"ANY")  # ANY without COUNT
        if self.chance(0.02):
            opts += [b"COUNT", self.pick([b"0", b"-1", b"x", b"9223372036854775808"])]
        self.r.shuffle(opts) if self.chance(0.3) and b"COUNT" not in opts else None
        return opts

    # ---- generators ---------------------------------------------------------------------

    def g_geoadd(self):
        k = self.key()
        opts = []
        if self.chance(0.3):
            for o in (b"NX", b"XX", b"CH"):
                if self.chance(0.3):
                    opts.append(o if self.chance(0.5) else o.lower())
        triples = []
        for _ in range(1 if self.chance(0.5) else self.r.randint(1, 8)):
            lon, lat = self.point()
            m = self.member()
            self.remember(k, m)
            triples += [lon, lat, m]
        if self.chance(0.03):
            # "0x10" is valid (strtod reads hex): it would put every member it meets on 16,1.
            lon, lat = self.pick(BAD_COORDS)
            if lon == b"0x10":
                lat += b".%d" % self.r.randrange(10**9)
            triples[:2] = [lon, lat]
        if self.chance(0.02):
            triples = triples[:-1]
        if self.chance(0.3):
            self.pending.append(Cmd([b"ZCARD", k]))
        return Cmd([b"GEOADD", k, *opts, *triples])

    def g_geoadd_edge(self):
        """An exact limit point under its own member, so no two members share a point."""
        i = self.r.randrange(len(EDGES))
        lon, lat = EDGES[i]
        k = self.key()
        self.pending.append(Cmd([b"GEOPOS", k, b"edge%d" % i]))
        self.pending.append(Cmd([b"GEOHASH", k, b"edge%d" % i]))
        return Cmd([b"GEOADD", k, fmt(lon), fmt(lat), b"edge%d" % i])

    def g_geoadd_bulk(self):
        """Past the listpack threshold (128) in one go."""
        k = self.key()
        n = self.pick([100, 127, 128, 129, 200])
        base = self.r.randrange(10000)
        triples = []
        for i in range(n):
            lon, lat = self.point()
            triples += [lon, lat, b"b%d" % (base + i)]
        self.pending.append(Cmd([b"OBJECT", b"ENCODING", k]))
        return Cmd([b"GEOADD", k, *triples])

    def g_geoadd_tie(self):
        """Members on one point (a shared spot, or 0,0 itself), or mirrored about 0,0."""
        k = self.key()
        triples = []
        if self.chance(0.5):
            lon, lat = self.pick(self.spots) if self.chance(0.7) else (b"0", b"0")
            for _ in range(self.r.randint(2, 9)):
                triples += [lon, lat, self.member()]
        else:
            dx = self.r.choice([0.0, 0.001, 0.05, 0.3, 1.7, 20.0]) * self.r.uniform(0.5, 1.5)
            dy = self.r.choice([0.0, 0.002, 0.04, 0.6, 3.0, 30.0]) * self.r.uniform(0.5, 1.5)
            for sx, sy in ((1, 1), (-1, 1), (1, -1), (-1, -1)):
                if self.chance(0.8):
                    triples += [b"%.6f" % (sx * dx), b"%.6f" % (sy * dy), self.member()]
            if not triples or self.chance(0.3):
                triples += [b"0", b"0", self.member()]
        for i in range(2, len(triples), 3):
            self.remember(k, triples[i])
            self.tied.setdefault(k, []).append(triples[i])
            del self.tied[k][:-30]
        return Cmd([b"GEOADD", k, *triples])

    def g_geosearch_tie(self):
        """A search where ties are likely: FROMMEMBER a member on a shared spot, or FROMLONLAT
        0 0 amid mirrored points; small COUNT (with or without ANY), any order."""
        k = self.key()
        tied = self.tied.get(k)
        if tied and self.chance(0.5):
            frm = [b"FROMMEMBER", self.pick(tied)]
        else:
            frm = [b"FROMLONLAT", b"0", b"0"]
        by = self._by() if self.chance(0.3) else [b"BYRADIUS", self.pick(
            [b"0", b"1", b"500", b"5000", b"3000"]), self.pick([b"km", b"m"])]
        opts = [b"COUNT", self.pick([b"1", b"2", b"3", b"4", b"5", b"6", b"8", b"12"])]
        if self.chance(0.25):
            opts.append(b"ANY")
        if self.chance(0.7):
            opts.append(self.pick([b"ASC", b"DESC"]))
        if self.chance(0.3):
            opts.append(self.pick([b"WITHDIST", b"WITHHASH", b"WITHCOORD"]))
        radius = by[1:] if by[0] == b"BYRADIUS" else [b"100", b"km"]
        form = self.r.randrange(4)
        if form == 0 and frm[0] == b"FROMMEMBER":
            return Cmd([self.pick([b"GEORADIUSBYMEMBER", b"GEORADIUSBYMEMBER_RO"]), k, frm[1],
                        *radius, *opts])
        if form == 1 and frm[0] == b"FROMLONLAT":
            return Cmd([self.pick([b"GEORADIUS", b"GEORADIUS_RO"]), k, b"0", b"0", *radius,
                        *opts])
        if form == 2 and k in TAGGED:
            dst = self.tkey()
            opts = [o for o in opts if not o.startswith(b"WITH")]
            self.pending.append(Cmd([b"ZRANGE", dst, b"0", b"-1", b"WITHSCORES"]))
            return Cmd([b"GEOSEARCHSTORE", dst, k, *frm, *by, *opts])
        return Cmd([b"GEOSEARCH", k, *frm, *by, *opts])

    def g_geopos(self):
        k = self.pick(KEYS + PLAIN_ZSET + DIST_KEYS) if self.chance(0.9) else self.pick(
            STRING_KEYS)
        cmd = self.pick([b"GEOPOS", b"GEOHASH"])
        return Cmd([cmd, k, *self.several(self.member, 0, 4)])

    def g_geodist(self):
        cmd = [b"GEODIST", self.key(), self.member(), self.member()]
        if self.chance(0.6):
            cmd.append(self.pick(UNITS + BAD_UNITS[:1]))
        if self.chance(0.02):
            cmd.append(b"extra")
        return Cmd(cmd)

    def _from(self, key):
        if self.chance(0.35):
            return [b"FROMMEMBER", self.centre_member(key)]
        return [b"FROMLONLAT", *(self.centre() if self.chance(0.97) else self.pick(BAD_COORDS))]

    def _by(self):
        if self.chance(0.55):
            return [b"BYRADIUS", *self.radius()]
        return [b"BYBOX", *self.box()]

    def g_geosearch(self):
        k = self.key()
        parts = []
        if not self.chance(0.03):
            parts += self._from(k)
        if not self.chance(0.03):
            parts += self._by()
        if self.chance(0.02):
            parts += self._from(k)  # FROMMEMBER and FROMLONLAT together
        opts = self.options(1.0)
        if self.chance(0.5):
            parts = parts + opts
        else:
            parts = opts + parts
        return Cmd([b"GEOSEARCH", k, *parts])

    def g_geosearchstore(self):
        src, dst = self.tkey(), self.tkey()
        if self.chance(0.1):
            dst = self.pick(LOOSE)  # another owner on a 2-worker proxy port: CROSSSLOT
        parts = self._from(src) + self._by() + self.options(0.08)
        if self.chance(0.4):
            parts.append(b"STOREDIST")
            dst = self.pick(DIST_KEYS[:2]) if self.chance(0.9) else DIST_KEYS[2]
        if self.chance(0.6):
            self.pending.append(Cmd([b"ZRANGE", dst, b"0", b"-1", b"WITHSCORES"]))
            self.pending.append(Cmd([b"OBJECT", b"ENCODING", dst]))
        return Cmd([b"GEOSEARCHSTORE", dst, src, *parts])

    def g_georadius(self):
        ro = self.chance(0.3)
        bymember = self.chance(0.4)
        k = self.key()
        if bymember:
            cmd = [b"GEORADIUSBYMEMBER_RO" if ro else b"GEORADIUSBYMEMBER", k,
                   self.centre_member(k)]
        else:
            lon, lat = self.centre() if self.chance(0.97) else self.pick(BAD_COORDS)
            cmd = [b"GEORADIUS_RO" if ro else b"GEORADIUS", k, lon, lat]
        cmd += [*self.radius(), *self.options(1.0)]
        if self.chance(0.25):
            k2 = self.tkey() if self.chance(0.9) else self.pick(LOOSE)
            if not ro or self.chance(0.1):  # _RO with STORE: a syntax error
                if self.chance(0.6):
                    cmd = [c for c in cmd if c.upper() not in (b"WITHDIST", b"WITHCOORD",
                                                               b"WITHHASH")]
                kw = self.pick([b"STORE", b"STOREDIST"])
                if kw == b"STOREDIST":
                    k2 = self.pick(DIST_KEYS[:2]) if self.chance(0.9) else DIST_KEYS[2]
                cmd += [kw, k2]
                self.pending.append(Cmd([b"ZRANGE", k2, b"0", b"-1", b"WITHSCORES"]))
        return Cmd(cmd)

    def g_zset(self):
        k = self.key()
        c = self.r.randrange(6)
        if c == 0:
            return Cmd([b"ZRANGE", k, b"0", b"-1", b"WITHSCORES"])
        if c == 1:
            return Cmd([b"ZREM", k, *self.several(self.member, 1, 5)])
        if c == 2:
            return Cmd([b"ZSCORE", k, self.member()])
        if c == 3:
            return Cmd([b"ZCARD", k])
        if c == 4:
            return Cmd([b"ZADD", self.pick(PLAIN_ZSET), self.pick(
                [b"0", b"1", b"-1", b"4503599627370496", b"4503599627370495.5", b"1e300",
                 b"-1e300", b"inf", b"-inf", b"9007199254740992", b"1e19", b"-3.7"]),
                        self.member()])
        return Cmd([b"ZREMRANGEBYRANK", k, b"0", self.pick([b"0", b"10", b"100"])])

    def g_generic(self):
        k = self.key()
        c = self.r.randrange(7)
        if c == 0:
            return Cmd([b"DEL", k])
        if c == 1:
            return Cmd([b"TYPE", k])
        if c == 2:
            return Cmd([b"OBJECT", b"ENCODING", k])
        if c == 3:
            return Cmd([b"COPY", self.tkey(), self.tkey(), b"REPLACE"])
        if c == 4:
            return Cmd([b"SET", self.pick(STRING_KEYS), b"v"])
        if c == 5:
            return Cmd([b"EXISTS", k])
        return Cmd([b"RENAME", self.tkey(), self.tkey()])

    def g_wrongtype(self):
        k = self.pick(STRING_KEYS)
        return self.pick([
            Cmd([b"GEOADD", k, b"1", b"2", b"m"]), Cmd([b"GEOADD", k, b"200", b"2", b"m"]),
            Cmd([b"GEOPOS", k, b"m"]), Cmd([b"GEODIST", k, b"a", b"b"]),
            Cmd([b"GEODIST", k, b"a", b"b", b"parsec"]),
            Cmd([b"GEOSEARCH", k, b"FROMLONLAT", b"0", b"0", b"BYRADIUS", b"1", b"km"]),
            Cmd([b"GEORADIUS", k, b"200", b"0", b"1", b"km"]),
            Cmd([b"GEOSEARCHSTORE", b"{g}0", b"{g}str", b"FROMLONLAT", b"0", b"0", b"BYRADIUS",
                 b"1", b"km"]),
            Cmd([b"GEOSEARCHSTORE", b"{g}str", b"{g}1", b"FROMLONLAT", b"0", b"0", b"BYRADIUS",
                 b"20000", b"km"]),
        ])

    def g_arity(self):
        k = self.key()
        return self.pick([
            Cmd([b"GEOADD", k]), Cmd([b"GEOADD", k, b"1", b"2"]), Cmd([b"GEOADD", k, b"NX",
                                                                      b"1", b"2"]),
            Cmd([b"GEOADD", k, b"NX", b"XX", b"1", b"2", b"m"]),
            Cmd([b"GEOADD", k, b"GT", b"1", b"2", b"m"]), Cmd([b"GEOADD", k, b"CH", b"CH", b"NX"]),
            Cmd([b"GEODIST", k, b"a"]), Cmd([b"GEOPOS"]), Cmd([b"GEOHASH"]),
            Cmd([b"GEOSEARCH", k, b"FROMLONLAT", b"0", b"0", b"BYRADIUS", b"1"]),
            Cmd([b"GEOSEARCH", k, b"FROMLONLAT", b"0", b"0", b"BYRADIUS", b"1", b"km", b"STORE",
                 b"x"]),
            Cmd([b"GEOSEARCH", k, b"BYRADIUS", b"1", b"km", b"FROMLONLAT", b"0"]),
            Cmd([b"GEOSEARCH", k, b"FROMLONLAT", b"0", b"0", b"BYBOX", b"1", b"1", b"km",
                 b"COUNT"]),
            Cmd([b"GEORADIUS", k, b"0", b"0", b"1"]), Cmd([b"GEORADIUSBYMEMBER", k, b"m", b"1"]),
            Cmd([b"GEORADIUS", k, b"0", b"0", b"1", b"km", b"STORE"]),
            Cmd([b"GEORADIUS_RO", k, b"0", b"0", b"1", b"km", b"STOREDIST", b"{g}1"]),
            Cmd([b"GEOSEARCHSTORE", b"{g}1", b"{g}2", b"FROMLONLAT", b"0", b"0", b"BYRADIUS",
                 b"1"]),
            Cmd([b"GEORADIUS", k, b"0", b"0", b"1", b"km", b"bogus"]),
        ])


WEIGHTS = {
    "geoadd": 24, "geoadd_edge": 2, "geoadd_bulk": 1, "geoadd_tie": 6, "geopos": 8,
    "geodist": 8, "geosearch": 22, "geosearch_tie": 10, "geosearchstore": 6, "georadius": 14,
    "zset": 6, "generic": 4, "wrongtype": 1, "arity": 2,
}
