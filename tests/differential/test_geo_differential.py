"""Geo differential test: gen_geo.py's seeded stream of GEOADD … GEORADIUSBYMEMBER_RO mixed
with the zset commands that see the stored scores goes to Ruvio and to redis-server 7.0.15;
every reply must match byte for byte (search results in the same order too: sorted ones by
distance, unsorted ones in the zset's order cell after cell), at 1 worker and through the
proxy port of a 2-worker Ruvio. There a STORE form whose destination has another owner than
its source must answer CROSSSLOT, and is not sent to redis-server.

Env: RUVIO_DIFF_SEED (printed; replays a run), RUVIO_GEO_DIFF_COMMANDS (default 20000).
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gen_geo  # noqa: E402
import test_differential as td  # noqa: E402


def _store_keys(args):
    """The keys of a geo STORE form as Redis 7.0's key specs find them."""
    name = args[0].upper()
    if name == b"GEOSEARCHSTORE":
        return args[1:3]
    start = {b"GEORADIUS": 6, b"GEORADIUSBYMEMBER": 5}.get(name)
    if start is None or len(args) < 2:
        return []
    keys = [args[1]]
    for kw in (b"STORE", b"STOREDIST"):  # one key spec each, searched from `start` on
        for i in range(start, len(args) - 1):
            if args[i].upper() == kw:
                keys.append(args[i + 1])
                break
    return keys


class GeoRun(td.DiffRun):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.gen = gen_geo.GeoGenerator(self.seed)

    unsplit = {b"COPY": td.UNSPLIT[b"COPY"], b"RENAME": td.UNSPLIT[b"RENAME"],
               **{name: _store_keys for name in (b"GEOSEARCHSTORE", b"GEORADIUS",
                                                  b"GEORADIUSBYMEMBER")}}


def run_geo_differential(seed, count, workers, against="ruvio"):
    return td.run_pair(lambda rp, cp: GeoRun(seed, rp, cp, against, count, workers),
                       against, workers)


def _count():
    return int(os.environ.get("RUVIO_GEO_DIFF_COMMANDS", "20000"))


class GeoDifferentialTest(td.FamilyDiffTest, unittest.TestCase):
    family = "geo"
    keys = gen_geo.KEYS
    count_env = "RUVIO_GEO_DIFF_COMMANDS"

    def run_family(self, seed, count, workers, against):
        return run_geo_differential(seed, count, workers, against)

    def check(self, stats, workers):
        super().check(stats, workers)
        if workers > 1:
            self.assertGreater(stats["crossslot"], 0)


if __name__ == "__main__":
    unittest.main()
