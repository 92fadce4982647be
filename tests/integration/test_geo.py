"""Geo commands: bad input gets redis-server 7.0.15's exact error and changes nothing (the
same cases run against redis-server itself, so the expected texts are Redis's own), exact
replies of the documented examples in RESP2 and RESP3, the STORE forms' destinations, COMMAND
INFO's key specs, CROSSSLOT on a 2-worker proxy port for a destination on the other worker,
and SIGKILL recovery of geo indexes and STORE destinations from the WAL and from a snapshot
plus WAL."""

import unittest

import itest
from durability_case import KillRecovery
from itest import Raw, harness

POINTS = ["13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"]

# (command, Redis 7.0.15's error): every one leaves the data set as it was.
BAD = [
    (["GEOADD", "g", "200", "10", "x"], "ERR invalid longitude,latitude pair 200.000000,10.000000"),
    (["GEOADD", "g", "10", "85.06", "x"], "ERR invalid longitude,latitude pair 10.000000,85.060000"),
    (["GEOADD", "g", "-180.1", "0", "x"], "ERR invalid longitude,latitude pair -180.100000,0.000000"),
    (["GEOADD", "g", "0", "-inf", "x"], "ERR invalid longitude,latitude pair 0.000000,-inf"),
    (["GEOADD", "g", "1", "2", "a", "200", "10", "x"],
     "ERR invalid longitude,latitude pair 200.000000,10.000000"),
    (["GEOADD", "g", "1e400", "0", "x"], "ERR value is not a valid float"),
    (["GEOADD", "g", "nan", "0", "x"], "ERR value is not a valid float"),
    (["GEOADD", "g", "NX", "XX", "1", "2", "a"], "ERR syntax error"),
    (["GEOADD", "g", "1", "2", "a", "3"], "ERR syntax error"),
    (["GEOADD", "g", "GT", "1", "2", "a"], "ERR syntax error"),
    (["GEOADD", "g"], "ERR wrong number of arguments for 'geoadd' command"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "parsec"],
     "ERR unsupported unit provided. please use M, KM, FT, MI"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km", "COUNT", "0"],
     "ERR COUNT must be > 0"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km", "COUNT", "-3"],
     "ERR COUNT must be > 0"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km", "COUNT", "x"],
     "ERR value is not an integer or out of range"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km", "ANY"],
     "ERR the ANY argument requires COUNT argument"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "-1", "10", "km"],
     "ERR height or width cannot be negative"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "10", "-1", "km"],
     "ERR height or width cannot be negative"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "10", "x", "km"],
     "ERR need numeric height"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "x", "-1", "km"],
     "ERR need numeric width"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "10", "10", "yd"],
     "ERR unsupported unit provided. please use M, KM, FT, MI"),
    (["GEOSEARCH", "g", "FROMMEMBER", "nobody", "BYRADIUS", "10", "km"],
     "ERR could not decode requested zset member"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "FROMMEMBER", "Palermo", "BYRADIUS", "10",
      "km"], "ERR syntax error"),
    (["GEOSEARCH", "g", "BYRADIUS", "10", "km", "WITHDIST", "ASC"],
     "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH"),
    (["geoSearch", "g", "FROMLONLAT", "15", "37", "WITHDIST", "ASC"],
     "ERR exactly one of BYRADIUS and BYBOX can be specified for geoSearch"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km", "STORE", "x"],
     "ERR syntax error"),
    (["GEOSEARCH", "g", "FROMLONLAT", "15", "91", "BYRADIUS", "10", "km"],
     "ERR invalid longitude,latitude pair 15.000000,91.000000"),
    (["GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km", "WITHCOORD"],
     "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"),
    (["GEORADIUS", "g", "15", "37", "10", "km", "STORE", "d", "WITHDIST"],
     "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD "
     "options"),
    (["GEORADIUS", "g", "15", "37", "-10", "km"], "ERR radius cannot be negative"),
    (["GEORADIUS", "g", "15", "37", "abc", "km"], "ERR need numeric radius"),
    (["GEORADIUS", "g", "15", "37", "10", "km", "STORE"], "ERR syntax error"),
    (["GEORADIUSBYMEMBER", "g", "nobody", "10", "km"],
     "ERR could not decode requested zset member"),
    (["GEORADIUS_RO", "g", "15", "37", "10", "km", "STORE", "d"], "ERR syntax error"),
    (["GEORADIUSBYMEMBER_RO", "g", "Palermo", "10", "km", "STOREDIST", "d"], "ERR syntax error"),
    (["GEODIST", "g", "Palermo", "Catania", "lightyears"],
     "ERR unsupported unit provided. please use M, KM, FT, MI"),
    (["GEODIST", "g", "Palermo", "Catania", "km", "extra"], "ERR syntax error"),
    (["GEOADD", "s", "1", "2", "x"], "WRONGTYPE Operation against a key holding the wrong kind of "
     "value"),
    (["GEOSEARCH", "s", "FROMLONLAT", "200", "0", "BYRADIUS", "-1", "parsec"],
     "WRONGTYPE Operation against a key holding the wrong kind of value"),
    (["GEOSEARCHSTORE", "g", "s", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"],
     "WRONGTYPE Operation against a key holding the wrong kind of value"),
]


class GeoCases:
    def load(self):
        self.assertEqual(self.raw_call("GEOADD", "g", *POINTS), b":2\r\n")
        self.assertEqual(self.raw_call("SET", "s", "text"), b"+OK\r\n")

    def state(self):
        return (self.raw_call("ZRANGE", "g", "0", "-1", "WITHSCORES"),
                self.raw_call("GET", "s"), self.raw_call("DBSIZE"))

    def test_bad_input_exact_errors_nothing_changed(self):
        self.load()
        before = self.state()
        for args, err in BAD:
            with self.subTest(args=args):
                self.assertError(err, *args)
                self.assertEqual(self.state(), before)

    def test_documented_examples(self):
        self.load()
        self.assertEqual(self.raw_call("GEODIST", "g", "Palermo", "Catania"),
                         b"$11\r\n166274.1516\r\n")
        self.assertEqual(self.raw_call("GEODIST", "g", "Palermo", "Catania", "km"),
                         b"$8\r\n166.2742\r\n")
        self.assertEqual(self.raw_call("GEODIST", "g", "Palermo", "nobody"), b"$-1\r\n")
        self.assertEqual(self.raw_call("GEOHASH", "g", "Palermo", "Catania", "nobody"),
                         b"*3\r\n$11\r\nsqc8b49rny0\r\n$11\r\nsqdtr74hyu0\r\n$-1\r\n")
        self.assertEqual(self.raw_call("GEOPOS", "g", "Palermo", "nobody"),
                         b"*2\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n"
                         b"38.11555639549629859\r\n*-1\r\n")
        self.assertEqual(
            self.raw_call("GEORADIUS", "g", "15", "37", "200", "km", "WITHDIST", "WITHHASH",
                          "WITHCOORD", "ASC"),
            b"*2\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n*2\r\n"
            b"$20\r\n15.08726745843887329\r\n$20\r\n37.50266842333162032\r\n*4\r\n"
            b"$7\r\nPalermo\r\n$8\r\n190.4424\r\n:3479099956230698\r\n*2\r\n"
            b"$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n")
        self.assertEqual(
            self.raw_call("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km",
                          "DESC", "COUNT", "1"), b"*1\r\n$7\r\nPalermo\r\n")
        self.assertEqual(self.raw_call("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "1",
                                       "m", "ANY", "COUNT", "5"), b"*1\r\n$7\r\nPalermo\r\n")
        # RESP3: coordinates are doubles, distances stay bulk strings.
        c = self.raw()
        c.call("HELLO", "3")
        self.assertEqual(c.call("GEOPOS", "g", "Palermo", "nobody"),
                         b"*2\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n"
                         b"_\r\n")
        self.assertEqual(c.call("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "100",
                                "km", "WITHDIST", "WITHCOORD"),
                         b"*1\r\n*3\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n*2\r\n"
                         b",15.08726745843887329\r\n,37.50266842333162032\r\n")

    def test_store_forms(self):
        self.load()
        self.assertEqual(self.raw_call("GEORADIUS", "g", "15", "37", "200", "km", "STOREDIST",
                                       "d"), b":2\r\n")
        self.assertEqual(self.raw_call("ZRANGE", "d", "0", "-1", "WITHSCORES"),
                         b"*4\r\n$7\r\nCatania\r\n$18\r\n56.441257870158204\r\n$7\r\nPalermo\r\n"
                         b"$18\r\n190.44242984775784\r\n")
        self.assertEqual(self.raw_call("OBJECT", "ENCODING", "d"), b"$8\r\nlistpack\r\n")
        self.assertEqual(self.raw_call("GEOSEARCHSTORE", "g", "g", "FROMMEMBER", "Palermo",
                                       "BYRADIUS", "1", "km"), b":1\r\n")  # onto its source
        self.assertEqual(self.raw_call("ZRANGE", "g", "0", "-1", "WITHSCORES"),
                         b"*2\r\n$7\r\nPalermo\r\n$16\r\n3479099956230698\r\n")
        # No result deletes the destination; a missing source too.
        self.assertEqual(self.raw_call("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "0", "0",
                                       "BYRADIUS", "1", "km"), b":0\r\n")
        self.assertEqual(self.raw_call("EXISTS", "d"), b":0\r\n")
        self.assertEqual(self.raw_call("SET", "d", "x"), b"+OK\r\n")
        self.assertEqual(self.raw_call("GEORADIUSBYMEMBER", "nokey", "m", "1", "km", "STORE",
                                       "d"), b":0\r\n")
        self.assertEqual(self.raw_call("EXISTS", "d"), b":0\r\n")
        self.assertEqual(self.raw_call("GEORADIUSBYMEMBER", "nokey", "m", "x", "parsec"),
                         b"*0\r\n")  # a missing source skips the radius

    def test_past_the_listpack_threshold(self):
        args = []
        for i in range(129):
            args += ["%.6f" % (10 + i * 0.001), "45", "m%d" % i]
        self.assertEqual(self.raw_call("GEOADD", "big", *args[:128 * 3]), b":128\r\n")
        self.assertEqual(self.raw_call("OBJECT", "ENCODING", "big"), b"$8\r\nlistpack\r\n")
        self.assertEqual(self.raw_call("GEOADD", "big", "CH", *args[-6:]), b":1\r\n")
        self.assertEqual(self.raw_call("OBJECT", "ENCODING", "big"), b"$8\r\nskiplist\r\n")
        self.assertEqual(self.raw_call("GEOSEARCH", "big", "FROMMEMBER", "m0", "BYRADIUS", "200",
                                       "m", "ASC", "COUNT", "3"),
                         b"*3\r\n$2\r\nm0\r\n$2\r\nm1\r\n$2\r\nm2\r\n")


class RedisReference(GeoCases, itest.RedisCase):
    pass


class Ruvio(GeoCases, itest.RuvioCase):
    def test_command_info_key_specs(self):
        # GEORADIUS: the source, then STORE / STOREDIST found by keyword (movable keys).
        self.assertEqual(self.raw_call("COMMAND", "GETKEYS", "GEORADIUS", "src", "0", "0", "1",
                                       "km", "STORE", "a", "STOREDIST", "b"),
                         b"*3\r\n$3\r\nsrc\r\n$1\r\na\r\n$1\r\nb\r\n")
        self.assertEqual(self.raw_call("COMMAND", "GETKEYS", "GEOSEARCHSTORE", "dst", "src",
                                       "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"),
                         b"*2\r\n$3\r\ndst\r\n$3\r\nsrc\r\n")


class RuvioProxy(itest.RuvioProxyCase):
    def test_store_across_workers_is_crossslot(self):
        src, dst = "ga", "gb"  # worker 1, worker 0
        self.assertNotEqual(itest.owner(src), itest.owner(dst))
        self.assertEqual(self.raw_call("GEOADD", src, *POINTS), b":2\r\n")
        cross = b"-" + self.CROSSSLOT.encode() + b"\r\n"
        self.assertEqual(self.raw_call("GEOSEARCHSTORE", dst, src, "FROMLONLAT", "15", "37",
                                       "BYRADIUS", "200", "km"), cross)
        self.assertEqual(self.raw_call("GEORADIUS", src, "15", "37", "200", "km", "STORE", dst),
                         cross)
        self.assertEqual(self.raw_call("EXISTS", dst), b":0\r\n")
        # Same owner (a hash tag): runs, forwarded or not.
        self.assertEqual(self.raw_call("GEOADD", "{ga}src", *POINTS), b":2\r\n")
        self.assertEqual(self.raw_call("GEOSEARCHSTORE", "{ga}dst", "{ga}src", "FROMLONLAT", "15",
                                       "37", "BYRADIUS", "200", "km"), b":2\r\n")
        # A read-only search and GEODIST of the other worker's key are forwarded.
        self.assertEqual(self.raw_call("GEODIST", src, "Palermo", "Catania", "km"),
                         b"$8\r\n166.2742\r\n")


DUR_KEYS = ["{g}pts", "{g}big", "{g}store", "{g}dist", "{g}self"]


def store(r, *args):
    """A STORE form through redis-py, whose reply parser needs to be told it is one."""
    return r.execute_command(*args, store=True, store_dist=False)


def workload(r, round_):
    r.execute_command("GEOADD", "{g}pts", *POINTS)
    r.execute_command("GEOADD", "{g}pts", "CH", "XX", "13.5", "38.2", "Palermo", "1", "1", "x")
    r.execute_command("GEOADD", "{g}pts", "NX", "180", "85.05112878", f"corner{round_}")
    args = []
    for i in range(200):
        args += ["%.6f" % (-179.5 + i * 0.01), "%.6f" % (60 + i * 0.003), f"b{round_}:{i}"]
    r.execute_command("GEOADD", "{g}big", *args)
    r.zrem("{g}big", f"b{round_}:5")
    store(r, "GEOSEARCHSTORE", "{g}store", "{g}big", "FROMLONLAT", "-179", "60.5",
                      "BYBOX", "150", "150", "km", "DESC", "COUNT", "40")
    store(r, "GEORADIUS", "{g}big", "-179", "60.5", "300", "km", "STOREDIST", "{g}dist")
    r.execute_command("GEOADD", "{g}self", "0", "0", "a", "0.1", "0", "b", "5", "5", "c")
    store(r, "GEORADIUSBYMEMBER", "{g}self", "a", "50", "km", "STORE", "{g}self")


def snapshot_of(r):
    return {k: (r.zrange(k, 0, -1, withscores=True), r.object("encoding", k)) for k in DUR_KEYS}


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class GeoDurability(KillRecovery, unittest.TestCase):
    prefix = "ruvio-geodur-"
    rounds = 2

    def workload(self, r, round_):
        workload(r, round_)

    def snapshot_of(self, r):
        return snapshot_of(r)

    def check_wal(self, want, r):
        self.assertEqual(want["{g}big"][1], b"skiplist")
        self.assertEqual(want["{g}store"][1], b"listpack")
        self.assertEqual(len(want["{g}store"][0]), 40)
        self.assertEqual(want["{g}self"][0], [(b"a", 3377699720527872.0),
                                              (b"b", 3377700265828866.0)])


if __name__ == "__main__":
    unittest.main()
