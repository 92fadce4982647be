"""A parameter CONFIG SET accepts is applied, and CONFIG GET tells what is true (issue 25
"Exactness"): hz drives the housekeeping tick (active expiry) and INFO's hz fields as in
redis-server 7.0.15; appendfsync/appendonly follow --durability; dbfilename names the file a
worker writes; save, jemalloc-bg-thread and dynamic-hz take only the value that is true."""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # noqa: E402
import itest  # noqa: E402
import sidebyside  # noqa: E402


def info_hz(r):
    s = r.info("server")
    return s["hz"], s["configured_hz"]


class HzCases:
    def test_hz_in_config_get_and_info_as_redis(self):
        a, b = self.ref.client(decode_responses=True), self.cand.client(decode_responses=True)
        for value in ("1000", "0", "-1", "abc", "100", "10"):
            with self.subTest(value=value):
                with itest.Raw(self.ref.port) as rr, itest.Raw(self.cand.port) as rc:
                    self.assertEqual(rc.call("CONFIG", "SET", "hz", value),
                                     rr.call("CONFIG", "SET", "hz", value))
                    self.assertEqual(rc.call("CONFIG", "GET", "hz"), rr.call("CONFIG", "GET", "hz"))
                self.assertEqual(info_hz(b), info_hz(a))

    def test_hz_drives_the_active_expiry_tick(self):
        r = self.cand.client(decode_responses=True)
        self.addCleanup(r.config_set, "hz", "10")
        r.flushall()
        # CONFIG SET hz restarts the tick: at hz 1 the next one is a second away.
        r.config_set("hz", "1")
        pipe = r.pipeline(transaction=False)
        for i in range(100):
            pipe.set(f"k{i}", "v", px=20)
        pipe.execute()
        time.sleep(0.4)
        self.assertEqual(r.dbsize(), 100)  # expired, not yet reclaimed: no tick came
        r.config_set("hz", "100")
        deadline = time.monotonic() + 0.5
        while r.dbsize() > 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertEqual(r.dbsize(), 0)


class HzOneWorker(HzCases, sidebyside.SideBySideCase):
    pass


class HzProxyPort(HzCases, sidebyside.SideBySideCase):
    workers = 2


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class Truth(unittest.TestCase):
    def test_appendfsync_and_appendonly_follow_durability(self):
        for durability, fsync, aof in (("always", "always", "yes"), ("everysec", "everysec", "yes"),
                                       ("memory", "no", "no")):
            with self.subTest(durability=durability), \
                    harness.Server(args=["--durability", durability]) as s:
                r = s.client(decode_responses=True)
                self.assertEqual(r.config_get("append*"),
                                 {"appendfsync": fsync, "appendonly": aof,
                                  "appendfilename": "appendonly.aof",
                                  "appenddirname": "appendonlydir"})
                # Setting what is true is accepted; the other mode is refused.
                self.assertEqual(r.execute_command("CONFIG", "SET", "appendfsync", fsync), "OK")
                other = "always" if fsync != "always" else "no"
                with self.assertRaisesRegex(Exception, "can't set immutable config"):
                    r.execute_command("CONFIG", "SET", "appendfsync", other)
                r.close()

    def test_dbfilename_is_the_file_written(self):
        with harness.Server(args=["--durability", "everysec"]) as s:
            r = s.client(decode_responses=True)
            conf = r.config_get("d*")
            r.set("k", "v")
            self.assertTrue(r.save())
            self.assertTrue(
                os.path.isfile(os.path.join(conf["dir"], "worker-0", conf["dbfilename"])), conf)
            r.close()

    def test_unapplied_parameters_take_only_the_true_value(self):
        with harness.Server() as s, itest.Raw(s.port) as c:
            for name, true, other in (("save", "", "3600 1"), ("jemalloc-bg-thread", "no", "yes"),
                                      ("dynamic-hz", "no", "yes")):
                with self.subTest(name=name):
                    self.assertEqual(c.call("CONFIG", "GET", name),
                                     itest.encode(name, true))
                    self.assertEqual(c.call("CONFIG", "SET", name, true), b"+OK\r\n")
                    self.assertEqual(
                        c.call("CONFIG", "SET", name, other),
                        b"-ERR CONFIG SET failed (possibly related to argument '" + name.encode() +
                        b"') - can't set immutable config\r\n")
