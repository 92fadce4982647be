"""A function past busy-reply-threshold: other clients get -BUSY with FUNCTION KILL's text,
FUNCTION STATS shows what runs, SCRIPT KILL refuses to stop a function (and FUNCTION KILL an
EVAL), FUNCTION KILL stops a read-only function, and one that wrote is UNKILLABLE. The same
assertions run against redis-server."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
from busy_case import UNKILLABLE, BusyServer  # noqa: E402

LIB = ("#!lua name=busy\n"
       "redis.register_function{function_name='spin', flags={'no-writes'}, callback=function() "
       "local i = 0 while true do i = i + 1 end end}\n"
       "redis.register_function('wspin', function(keys) redis.call('set', keys[1], 1) "
       "local i = 0 while true do i = i + 1 end end)\n")
BUSY_F = (b"-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN "
          b"NOSAVE.\r\n")
BUSY_E = (b"-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
          b"NOSAVE.\r\n")


class BusyCases(BusyServer):
    def setUp(self):
        super().setUp()
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("FUNCTION", "LOAD", LIB), b"$4\r\nbusy\r\n")

    def test_function_kill(self):
        t, result = self.start_busy("FCALL", "spin", "0")
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("GET", "x"), BUSY_F)
            self.assertEqual(c.call("FCALL", "spin", "0"), BUSY_F)
            stats = c.call("FUNCTION", "STATS")
            self.assertTrue(stats.startswith(
                b"*4\r\n$14\r\nrunning_script\r\n*6\r\n$4\r\nname\r\n$4\r\nspin\r\n$7\r\ncommand"
                b"\r\n*3\r\n$5\r\nFCALL\r\n$4\r\nspin\r\n$1\r\n0\r\n$11\r\nduration_ms\r\n:"),
                stats)
            self.assertEqual(c.call("SCRIPT", "KILL"), BUSY_F)
            self.assertEqual(c.call("FUNCTION", "KILL"), b"+OK\r\n")
        t.join(10)
        self.assertEqual(result["reply"], b"-ERR Script killed by user with SCRIPT KILL... "
                         b"script: spin, on @user_function:2.\r\n")
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("PING"), b"+PONG\r\n")
            self.assertEqual(c.call("FUNCTION", "KILL"),
                             b"-NOTBUSY No scripts in execution right now.\r\n")

    def test_unkillable_after_a_write(self):
        t, result = self.start_busy("FCALL", "wspin", "1", "w")
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("FUNCTION", "KILL"), UNKILLABLE)
            self.assertShutdownNosaveStops(c)

    def test_function_kill_does_not_stop_eval(self):
        t, result = self.start_busy("EVAL", "local i = 0 while true do i = i + 1 end", "0")
        with itest.Raw(self.server.port) as c:
            self.assertEqual(c.call("FUNCTION", "KILL"), BUSY_E)
            self.assertEqual(c.call("FUNCTION", "STATS"), BUSY_E)
            self.assertEqual(c.call("SCRIPT", "KILL"), b"+OK\r\n")
        t.join(10)
        self.assertTrue(result["reply"].startswith(b"-ERR Script killed by user"))


class RedisReference(BusyCases, unittest.TestCase):
    kind = "redis"


@unittest.skipUnless(itest.harness.ruvio_built(), "ruvio not built")
class Ruvio(BusyCases, unittest.TestCase):
    kind = "ruvio"


if __name__ == "__main__":
    unittest.main()
