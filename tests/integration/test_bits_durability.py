"""Bitmaps, BITFIELD counters and HyperLogLogs survive SIGKILL: WAL replay (durability
always) and snapshot + WAL (BGSAVE, then more writes) restore every value byte for byte.
The writes cover SETBIT growth across the 1 KiB embedded-string limit, SETBIT on an
integer-encoded string, BITFIELD (logged as the SETRANGE of the bytes it wrote) with SAT,
WRAP and FAIL including a FAIL that only grew the string, BITOP, PFADD sparse and past the
sparse limit, a sparse HLL past 1 KiB (kept in its record up to 3 KiB: record.hpp,
kEmbedHllMax; 1221 bytes after round 0, 1749 after round 2, as redis-server 7.0.15 has
them), PFMERGE and PFDEBUG TODENSE.

PFCOUNT's cached cardinality is a read's side effect and is not logged (as it is not part of
Redis's AOF either unless the value is rewritten); the comparison runs PFCOUNT on each HLL
first, which writes the same cache on both sides, then compares GET."""

import unittest

from durability_case import KillRecovery, harness

BIT_KEYS = ["{b}small", "{b}big", "{b}int", "{b}bf", "{b}fail", "{b}and", "{b}not"]
HLL_KEYS = ["{b}h1", "{b}h2", "{b}dense", "{b}merged", "{b}todense", "{b}wide"]


def workload(r, round_):
    for off in (0, 7, 100 + round_, 1000):
        r.setbit("{b}small", off, 1)
    r.setbit("{b}small", 7, 0)
    for off in (8000, 8191, 8192 + round_, 20000):  # crosses 1024 bytes: external buffer
        r.setbit("{b}big", off, 1)
    r.set("{b}int", 12345)
    r.setbit("{b}int", 2 + round_, 1)  # an integer-encoded string, edited as its text
    r.execute_command("BITFIELD", "{b}bf", "OVERFLOW", "SAT", "INCRBY", "u16", "#3", 40000,
                      "OVERFLOW", "WRAP", "INCRBY", "i8", 5, 200, "SET", "u63", 100, 12345)
    r.execute_command("BITFIELD", "{b}fail", "OVERFLOW", "FAIL", "INCRBY", "u8", 800, 300)
    r.bitop("AND", "{b}and", "{b}small", "{b}big")
    r.bitop("NOT", "{b}not", "{b}int")
    r.pfadd("{b}h1", *[f"e{round_}:{i}" for i in range(20)])
    r.pfadd("{b}h2", *[f"x{i}" for i in range(5)])
    r.pfadd("{b}dense", *[f"d{round_}:{i}" for i in range(3000)])  # past 3000 bytes: dense
    r.pfadd("{b}wide", *[f"w{round_}:{i}" for i in range(600 if round_ == 0 else 150)])
    r.pfmerge("{b}merged", "{b}h1", "{b}h2")
    r.pfadd("{b}todense", "a", "b", round_)
    r.execute_command("PFDEBUG", "TODENSE", "{b}todense")


def snapshot_of(r):
    for k in HLL_KEYS:
        r.pfcount(k)
    return {k: r.get(k) for k in BIT_KEYS + HLL_KEYS}


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class BitsDurability(KillRecovery, unittest.TestCase):
    prefix = "ruvio-bdur-"

    def workload(self, r, round_):
        workload(r, round_)

    def snapshot_of(self, r):
        return snapshot_of(r)

    def check_wal(self, want, r):
        self.assertEqual(len(want["{b}big"]), 20000 // 8 + 1)
        self.assertEqual(want["{b}fail"], b"\x00" * 101)  # FAIL wrote nothing, grew the key
        self.assertEqual(r.execute_command("PFDEBUG", "ENCODING", "{b}dense"), b"dense")
        self.assertEqual(r.execute_command("PFDEBUG", "ENCODING", "{b}h1"), b"sparse")
        self.assertEqual(r.execute_command("PFDEBUG", "ENCODING", "{b}todense"), b"dense")
        self.assertEqual(r.execute_command("PFDEBUG", "ENCODING", "{b}wide"), b"sparse")
        self.assertGreater(len(want["{b}wide"]), 1024)

    def check_recovered(self, want, r):
        self.check_wal(want, r)


if __name__ == "__main__":
    unittest.main()
