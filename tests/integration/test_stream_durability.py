"""Streams survive SIGKILL: WAL replay (durability always) and snapshot + WAL (BGSAVE, then
more writes) restore every stream exactly — entries, tombstones and the 7.0 counters
(last/first/max-deleted IDs, entries-added), node layout (radix-tree-keys), consumer groups
with their last-delivered IDs, entries-read, consumers' seen-times and every PEL entry with
its owner, delivery time and delivery count — after writes of every kind: XADD with
generated, explicit and "<ms>-*" IDs, MAXLEN/MINID trims (= and ~), XDEL, XTRIM, XSETID,
XGROUP CREATE/SETID/CREATECONSUMER/DELCONSUMER/DESTROY, XREADGROUP (new and history, NOACK),
XCLAIM (TIME, RETRYCOUNT, FORCE, JUSTID), XAUTOCLAIM and XACK.

XREADGROUP, XCLAIM and XAUTOCLAIM are logged as their effects (XGROUP CREATECONSUMER, XCLAIM
... TIME <absolute> RETRYCOUNT <n> FORCE JUSTID, XGROUP SETID ... ENTRIESREAD, XACK of the
NACKs of deleted entries): the WAL holds none of the commands themselves, and XPENDING's
idle times after the restart are the live ones plus the time the restart took."""

import time
import unittest

from durability_case import KillRecovery, harness

KEYS = ["{x}log", "{x}big", "{x}groups", "{x}empty"]


def raw_x(r):
    """redis-py's parsers for the X commands reshape replies (and trip on JUSTID): off."""
    for name in [n for n in r.response_callbacks if n.upper().startswith("X")]:
        del r.response_callbacks[name]
    return r.execute_command


def workload(r, round_):
    x = raw_x(r)
    for i in range(30):
        r.xadd("{x}log", {"f": i, "v": "val%d" % i})
    x("XADD", "{x}log", "MAXLEN", "~", "10", "*", "f", "t", "v", "trim")
    x("XADD", "{x}log", "%d-*" % (10**13 + round_), "odd", "fields", "x", "1")
    for i in range(450):
        x("XADD", "{x}big", "%d-%d" % (round_ * 1000 + 1 + i // 3, i % 3), "a", i, "b", "x" * (i % 7))
    x("XDEL", "{x}big", "%d-1" % (round_ * 1000 + 5), "%d-0" % (round_ * 1000 + 100))
    x("XTRIM", "{x}big", "MINID", "=", "%d-0" % (round_ * 1000 + 3))
    x("XTRIM", "{x}big", "MAXLEN", "~", "300")
    x("XADD", "{x}empty", "%d-1" % (round_ * 10 + 1), "a", "b")
    x("XDEL", "{x}empty", "%d-1" % (round_ * 10 + 1))
    x("XSETID", "{x}empty", "%d-5" % (round_ * 10 + 5), "ENTRIESADDED", "9", "MAXDELETEDID",
      "%d-0" % (round_ * 10 + 2))

    g = "{x}groups"
    for i in range(20):
        x("XADD", g, "%d-0" % (round_ * 100 + i + 1), "n", i)
    x("XGROUP", "CREATE", g, "ga%d" % round_, "0")
    x("XGROUP", "CREATE", g, "gb%d" % round_, "$", "ENTRIESREAD", "3")
    x("XGROUP", "CREATECONSUMER", g, "ga%d" % round_, "idle")
    x("XREADGROUP", "GROUP", "ga%d" % round_, "alice", "COUNT", "5", "STREAMS", g, ">")
    x("XREADGROUP", "GROUP", "ga%d" % round_, "bob", "COUNT", "4", "STREAMS", g, ">")
    x("XREADGROUP", "GROUP", "ga%d" % round_, "alice", "STREAMS", g, "0")  # counts -> 2
    x("XREADGROUP", "GROUP", "ga%d" % round_, "carol", "NOACK", "COUNT", "2", "STREAMS", g, ">")
    first = round_ * 100 + 1
    x("XCLAIM", g, "ga%d" % round_, "bob", "0", "%d-0" % (first + 5), "%d-0" % (first + 6),
      "TIME", "1000", "RETRYCOUNT", "7")
    x("XCLAIM", g, "ga%d" % round_, "carol", "0", "%d-0" % (first + 15), "FORCE", "JUSTID")
    x("XAUTOCLAIM", g, "ga%d" % round_, "dave", "0", "0", "COUNT", "2")
    x("XACK", g, "ga%d" % round_, "%d-0" % (first + 2))
    x("XGROUP", "DELCONSUMER", g, "ga%d" % round_, "idle")
    x("XGROUP", "SETID", g, "gb%d" % round_, "%d-0" % (first + 10), "ENTRIESREAD", "11")
    x("XGROUP", "CREATE", g, "doomed", "0")
    x("XREADGROUP", "GROUP", "doomed", "z", "STREAMS", g, ">")
    x("XGROUP", "DESTROY", g, "doomed")


def snapshot_of(r):
    raw_x(r)
    out = {}
    for k in KEYS:
        out[k] = (r.execute_command("XINFO", "STREAM", k, "FULL", "COUNT", "0"),
                  r.execute_command("XRANGE", k, "-", "+"), r.type(k), r.object("encoding", k))
    return out


def pending_of(r):
    """Every group's extended XPENDING: (id, owner, idle ms, delivery count)."""
    out = {}
    for k in KEYS:
        for g in r.execute_command("XINFO", "GROUPS", k):
            name = dict(zip(g[::2], g[1::2]))[b"name"]
            out[(k, name)] = r.execute_command("XPENDING", k, name, "-", "+", "1000")
    return out


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class StreamDurability(KillRecovery, unittest.TestCase):
    prefix = "ruvio-xdur-"

    def workload(self, r, round_):
        workload(r, round_)

    def snapshot_of(self, r):
        return snapshot_of(r)

    def check_wal(self, want, r):
        info = dict(zip(want["{x}groups"][0][::2], want["{x}groups"][0][1::2]))
        groups = {dict(zip(g[::2], g[1::2]))[b"name"]: dict(zip(g[::2], g[1::2]))
                  for g in info[b"groups"]}
        ga = groups[b"ga0"]
        counts = sorted(p[3] for p in ga[b"pending"])
        self.assertIn(7, counts)   # RETRYCOUNT
        self.assertIn(2, counts)   # a history read counted again
        self.assertIn(1000, [p[2] for p in ga[b"pending"]])  # TIME
        self.assertNotIn(b"doomed", groups)
        self.assertEqual(want["{x}big"][3], b"stream")
        big = dict(zip(want["{x}big"][0][::2], want["{x}big"][0][1::2]))
        self.assertGreater(big[b"radix-tree-keys"], 1)
        # Effects, not commands.
        wal = self.wal_segments()
        for command in (b"XREADGROUP", b"XAUTOCLAIM"):
            self.assertNotIn(command, wal)
        for effect in (b"CREATECONSUMER", b"RETRYCOUNT", b"ENTRIESREAD", b"JUSTID"):
            self.assertIn(effect, wal)

    def check_recovered(self, want, r):
        self.assertGreater(r.memory_usage("{x}big"), 300 * 10)

    def test_pel_idle_times_survive_sigkill(self):
        srv = self.start("always")
        r = srv.client()
        raw_x(r)
        workload(r, 0)
        before = pending_of(r)
        self.assertGreaterEqual(sum(len(p) for p in before.values()), 9)
        t0 = time.monotonic()
        r.close()
        self.crash(srv)
        srv = self.start("everysec")
        r = srv.client()
        raw_x(r)
        after = pending_of(r)
        took_ms = (time.monotonic() - t0) * 1000
        self.assertEqual(before.keys(), after.keys())
        for group, rows in before.items():
            self.assertEqual([(p[0], p[1], p[3]) for p in after[group]],
                             [(p[0], p[1], p[3]) for p in rows], group)
            for b, a in zip(rows, after[group]):
                # Delivery times are absolute: idle grew by the restart, no more (+ 100 ms of
                # clock granularity and the XPENDING round trips).
                self.assertGreaterEqual(a[2], b[2], (group, b, a))
                self.assertLessEqual(a[2], b[2] + took_ms + 100, (group, b, a))
        r.close()


if __name__ == "__main__":
    unittest.main()
