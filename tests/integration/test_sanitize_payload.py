"""sanitize-dump-payload no|yes|clients beside redis-server 7.0, RESTORE of corrupt payloads
under each level, raw replies compared.

Redis 7.0 checks a payload deeply under `yes`, and under `clients` for every client but its
master and users with skip-sanitize-payload (rdbLoadObject's deep_integrity_validation);
under `no` (its default) only the blob headers are checked, so it accepts a zset listpack
with a duplicate member or an entry whose back-length or length is wrong, and an intset that
is unsorted or holds a duplicate: values its later commands may misread or crash on.
Ruvio's decoders turn every blob into elements and rebuild the value through the types'
operations, whose walkers trust what they hold, so it keeps the deep check at every level:
under `no` (and for a skip-sanitize-payload user under `clients`) such a payload gets the
`Bad data format` that redis-server gives under `yes`. This test pins both sides of that
difference (redis-server really accepts them under `no`), that every payload both servers
refuse, or both accept, answers alike at every level, CONFIG GET/SET of the parameter, and
that Ruvio serves on after each payload."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))
import dump_data as dd  # noqa: E402
import harness  # noqa: E402
import sidebyside  # noqa: E402
from resp_raw import RawConn  # noqa: E402

LEVELS = ("no", "yes", "clients")
BAD = b"-ERR Bad data format\r\n"
OK = b"+OK\r\n"


def bodies(r):
    """DUMP bodies (footer cut) of a small zset, intset and hash made on redis-server."""
    r.call("ZADD", "z", "1", "a", "2", "b")
    r.call("SADD", "s", "1", "2", "3")
    r.call("HSET", "h", "f", "1", "g", "2")
    out = {}
    for k in ("z", "s", "h"):
        reply = r.call("DUMP", k)
        payload = reply[reply.index(b"\r\n") + 2:-2]
        out[k] = payload[:-10]
    return out


def payloads(b):
    """(name, payload, accepted by redis-server under `no`) for each case."""
    z, s, h = b["z"], b["s"], b["h"]
    ints = s.index(b"\x01\x00\x02\x00\x03\x00")
    cases = [
        ("zset duplicate member", z.replace(b"\x81b", b"\x81a"), True),
        ("zset wrong back-length", z.replace(b"\x81a\x02", b"\x81a\x05"), True),
        ("zset entry length past", z.replace(b"\x81b", b"\x82b"), True),
        ("intset unsorted", s[:ints] + b"\x03\x00\x02\x00\x01\x00" + s[ints + 6:], True),
        ("intset duplicate", s[:ints] + b"\x01\x00\x01\x00\x03\x00" + s[ints + 6:], True),
        ("zset listpack cut", z[:len(z) - 3], False),
        ("hash wrong type byte", b"\x63" + h[1:], False),
        ("valid zset", z, None),
        ("valid intset", s, None),
        ("valid hash", h, None),
    ]
    out = [(n, dd.with_footer(p), acc) for n, p, acc in cases]
    out.append(("bad checksum", dd.with_footer(z)[:-1] + b"\x00", False))
    out.append(("newer version", dd.with_footer(z, version=11), False))
    return out


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class SanitizePayload(unittest.TestCase):
    def test_levels_beside_redis(self):
        with sidebyside.pair() as (redis, ruvio):
            a, b = RawConn(ruvio.port), RawConn(redis.port)
            cases = payloads(bodies(b))
            b.call("FLUSHALL")
            for conn in (a, b):  # a user that skips the deep check under `clients`
                self.assertEqual(conn.call("ACL", "SETUSER", "skipper", "on", "nopass", "~*",
                                           "+@all", "skip-sanitize-payload"), OK)
            self.assertEqual(a.call("CONFIG", "GET", "sanitize-dump-payload"),
                             b.call("CONFIG", "GET", "sanitize-dump-payload"))
            for args in (["CONFIG", "SET", "sanitize-dump-payload", "maybe"],
                         ["CONFIG", "SET", "sanitize-dump-payload", "YES"],
                         ["CONFIG", "GET", "sanitize-dump-payload"]):
                self.assertEqual(a.call(*args), b.call(*args), args)
            for level in LEVELS:
                for conn in (a, b):
                    self.assertEqual(conn.call("CONFIG", "SET", "sanitize-dump-payload", level), OK)
                for user in ("default", "skipper"):
                    for conn in (a, b):
                        self.assertEqual(conn.call("AUTH", user, "x"), OK)
                    for name, payload, lax in cases:
                        what = (level, user, name)
                        x = a.call("RESTORE", "t", "0", payload, "REPLACE")
                        y = b.call("RESTORE", "t", "0", payload, "REPLACE")
                        deep = level == "yes" or (level == "clients" and user == "default")
                        if lax is None:
                            self.assertEqual((x, y), (OK, OK), what)
                        elif lax and not deep:
                            # redis-server takes it; Ruvio keeps the deep check.
                            self.assertEqual((x, y), (BAD, OK), what)
                        else:
                            self.assertEqual(x, y, what)
                            self.assertTrue(x.startswith(b"-"), what)
                        b.call("DEL", "t")  # the reference's broken value goes at once
                        self.assertEqual(a.call("PING"), b"+PONG\r\n", what)
            a.close()
            b.close()


if __name__ == "__main__":
    unittest.main()
