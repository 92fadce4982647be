"""Writes that Redis 7.0.15 does not signal as a modification (signalModifiedKey): a WATCH on
the key stays clean (MULTI/EXEC after them succeeds), a tracking client gets no invalidation,
and no keyspace event is published where Redis publishes none.

* SETBIT of a bit already so, BITFIELD SET of the value already there, BITFIELD INCRBY 0:
  nothing changed, nothing signalled (no event either). Nor is a BITFIELD whose writes all
  failed (OVERFLOW FAIL), even when Redis created or grew the string for it.
* The consumer-group commands and XSETID (XGROUP CREATE on an existing stream, SETID,
  CREATECONSUMER, DELCONSUMER, DESTROY; XREADGROUP, XACK, XCLAIM, XAUTOCLAIM): Redis changes
  the stream (and propagates) but never calls signalModifiedKey — except XGROUP CREATE
  MKSTREAM when it creates the key.
* PFDEBUG GETREG / TODENSE of a sparse HLL: converted, not signalled.

Each case is checked on redis-server too (RedisReference), so the expectation is Redis's.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

STREAM = [["XADD", "k", "1-1", "f", "v"], ["XADD", "k", "2-1", "f", "v"],
          ["XGROUP", "CREATE", "k", "g", "0"]]
READ = STREAM + [["XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">"]]

# (name, setup, command, signalled, events published on k)
CASES = [
    ("setbit same", [["SETBIT", "k", "3", "1"]], ["SETBIT", "k", "3", "1"], False, []),
    ("setbit changes", [["SETBIT", "k", "3", "1"]], ["SETBIT", "k", "3", "0"], True,
     ["setbit"]),
    ("bitfield set same", [["SET", "k", "abc"]], ["BITFIELD", "k", "SET", "u8", "0", "97"],
     False, []),
    ("bitfield incrby 0", [["SET", "k", "abc"]], ["BITFIELD", "k", "INCRBY", "i8", "8", "0"],
     False, []),
    ("bitfield set changes", [["SET", "k", "abc"]], ["BITFIELD", "k", "SET", "u8", "0", "98"],
     True, ["setbit"]),
    ("bitfield fail creates", [], ["BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "800",
                                   "300"], False, []),
    ("bitfield grows", [["SET", "k", "abc"]], ["BITFIELD", "k", "SET", "u8", "64", "0"],
     True, ["setbit"]),
    ("xgroup create", STREAM, ["XGROUP", "CREATE", "k", "g2", "0"], False, ["xgroup-create"]),
    ("xgroup create mkstream", [], ["XGROUP", "CREATE", "k", "g", "$", "MKSTREAM"], True,
     ["xgroup-create"]),
    ("xgroup setid", STREAM, ["XGROUP", "SETID", "k", "g", "$"], False, ["xgroup-setid"]),
    ("xgroup createconsumer", STREAM, ["XGROUP", "CREATECONSUMER", "k", "g", "c9"], False,
     ["xgroup-createconsumer"]),
    ("xgroup delconsumer", READ, ["XGROUP", "DELCONSUMER", "k", "g", "c"], False,
     ["xgroup-delconsumer"]),
    ("xgroup destroy", STREAM, ["XGROUP", "DESTROY", "k", "g"], False, ["xgroup-destroy"]),
    ("xreadgroup", STREAM, ["XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">"], False,
     ["xgroup-createconsumer"]),
    ("xack", READ, ["XACK", "k", "g", "1-1"], False, []),
    ("xclaim", READ, ["XCLAIM", "k", "g", "d", "0", "1-1"], False, ["xgroup-createconsumer"]),
    ("xautoclaim", READ, ["XAUTOCLAIM", "k", "g", "d", "0", "0"], False,
     ["xgroup-createconsumer"]),
    ("xsetid", STREAM, ["XSETID", "k", "5-5"], False, ["xsetid"]),
    ("xadd", STREAM, ["XADD", "k", "3-1", "f", "v"], True, ["xadd"]),
    ("pfdebug getreg", [["PFADD", "k", "a", "b"]], ["PFDEBUG", "GETREG", "k"], False, []),
    ("pfdebug todense", [["PFADD", "k", "a", "b"]], ["PFDEBUG", "TODENSE", "k"], False, []),
    ("pfadd changes", [["PFADD", "k", "a", "b"]], ["PFADD", "k", "zz"], True, ["pfadd"]),
]


class UnchangedCases:
    def test_signals(self):
        for name, setup, cmd, signalled, events in CASES:
            with self.subTest(case=name):
                self.r.flushall()
                self.r.config_set("notify-keyspace-events", "KEA")
                for c in setup:
                    self.r.execute_command(*c)
                sub = self.raw()
                sub.call("PSUBSCRIBE", "__keyspace@0__:k")
                tracker = self.raw()
                tracker.call("HELLO", "3")
                tracker.call("CLIENT", "TRACKING", "ON")
                tracker.call("TYPE", "k")  # the key is now tracked
                watcher = self.raw()
                watcher.call("WATCH", "k")
                self.r.execute_command(*cmd)
                watcher.call("MULTI")
                watcher.call("PING")
                exec_reply = watcher.call("EXEC")
                self.assertEqual(exec_reply == b"*-1\r\n", signalled, f"{name}: WATCH")
                pushes = tracker.read_quiet()
                self.assertEqual(b"invalidate" in pushes, signalled, f"{name}: tracking")
                got = sub.read_quiet()
                published = [e for e in events if f"${len(e)}\r\n{e}\r\n".encode() in got]
                self.assertEqual(published, events, f"{name}: events {got!r}")
                self.assertEqual(got.count(b"pmessage"), len(events), f"{name}: {got!r}")


class RedisReference(UnchangedCases, itest.RedisCase):
    pass


class Ruvio(UnchangedCases, itest.RuvioCase):
    pass


class RuvioProxy(UnchangedCases, itest.RuvioProxyCase):
    pass


if __name__ == "__main__":
    unittest.main()
