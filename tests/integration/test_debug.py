"""DEBUG against redis-server 7.0, raw replies byte for byte: refused by default with Redis's
text; with enable-debug-command yes: PROTOCOL of every type in RESP2 and RESP3, DIGEST /
DIGEST-VALUE (missing keys, expiry), OBJECT's error, LISTPACK/QUICKLIST answers, ERROR, SLEEP,
QUICKLIST-PACKED-THRESHOLD, STRINGMATCH-TEST, unknown subcommands and arity; SET-ACTIVE-EXPIRE
stops the expiry cycle; RELOAD keeps the dataset (same DIGEST)."""

import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))
import dump_data as dd  # noqa: E402
import harness  # noqa: E402
import sidebyside  # noqa: E402
from resp_raw import RawConn  # noqa: E402

TYPES = ["string", "integer", "double", "bignum", "null", "array", "set", "map", "attrib",
         "push", "verbatim", "true", "false", "nosuch"]


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class Debug(unittest.TestCase):
    def test_refused_by_default(self):
        with sidebyside.pair() as (redis, ruvio):
            for args in (["DEBUG", "DIGEST"], ["DEBUG"], ["DEBUG", "HELP"]):
                a, b = RawConn(ruvio.port), RawConn(redis.port)
                self.assertEqual(a.call(*args), b.call(*args), args)
                a.close()
                b.close()
            r = ruvio.client()
            self.assertEqual(r.config_get("enable-debug-command"), {"enable-debug-command": "no"})
            r.close()

    def test_side_by_side(self):
        with sidebyside.pair(1, dd.redis_args(), dd.ruvio_args()) as (redis, ruvio):
            for srv in (redis, ruvio):
                c = srv.client()
                c.set("s", "v")
                c.set("n", 123)
                c.rpush("l", "a", 1)
                c.hset("h", "f", "v")
                c.zadd("z", {"a": 1.5, "b": -0.0})
                c.sadd("st", 1, 2, 3)
                c.set("t", "x", px=100000)
                c.close()
            cases = [["DEBUG", "PROTOCOL", t] for t in TYPES]
            cases += [["DEBUG", "DIGEST"], ["DEBUG", "DIGEST-VALUE"],
                      ["DEBUG", "DIGEST-VALUE", "s", "n", "l", "h", "z", "st", "t", "nokey"],
                      ["DEBUG", "OBJECT", "nokey"], ["DEBUG", "OBJECT"],
                      ["DEBUG", "LISTPACK", "h"], ["DEBUG", "LISTPACK", "l"],
                      ["DEBUG", "LISTPACK", "nokey"], ["DEBUG", "QUICKLIST", "l"],
                      ["DEBUG", "QUICKLIST", "h"], ["DEBUG", "ERROR", "oops"],
                      ["DEBUG", "ERROR", "-CODE text"], ["DEBUG", "SLEEP", "0"],
                      ["DEBUG", "SLEEP", "0.01"], ["DEBUG", "nosuch"], ["DEBUG", "DIGEST", "x"],
                      ["DEBUG", "QUICKLIST-PACKED-THRESHOLD", "abc"],
                      ["DEBUG", "QUICKLIST-PACKED-THRESHOLD", "100"],
                      ["DEBUG", "QUICKLIST-PACKED-THRESHOLD", "5gb"],
                      ["DEBUG", "CHANGE-REPL-ID"],
                      ["DEBUG", "SET-ACTIVE-EXPIRE", "1"], ["DEBUG", "LOG", "hello"],
                      ["DEBUG", "JMAP"], ["DEBUG", "QUICKLIST", "l", "1"]]
            for proto in (2, 3):
                a, b = RawConn(ruvio.port), RawConn(redis.port)
                if proto == 3:
                    a.call("HELLO", "3")
                    b.call("HELLO", "3")
                for args in cases + ([["DEBUG", "STRINGMATCH-TEST"]] if proto == 2 else []):
                    self.assertEqual(a.call(*args), b.call(*args), (proto, args))
                a.close()
                b.close()
            r = ruvio.client()
            # What the +OK and "printed on stdout" replies claim went to the log.
            log = ruvio.output()
            self.assertIn("DEBUG LOG: hello", log)
            self.assertIn("DEBUG LISTPACK h:\n{total bytes ", log)
            self.assertIn("{index     0} {value str f}", log)
            self.assertIn("DEBUG QUICKLIST l:\n{quicklist count:2 len:1 compress:0}", log)
            self.assertIn("{index     1} {value int 1}", log)
            # CHANGE-REPL-ID: a new replication id, as INFO shows it.
            replid = r.info("replication")["master_replid"]
            self.assertEqual(r.execute_command("DEBUG", "CHANGE-REPL-ID"), b"OK")
            self.assertNotEqual(r.info("replication")["master_replid"], replid)
            self.assertEqual(len(r.info("replication")["master_replid"]), 40)
            obj = r.execute_command("DEBUG", "OBJECT", "l")
            self.assertRegex(obj, rb"^Value at:0x[0-9a-f]+ refcount:1 encoding:quicklist "
                                  rb"serializedlength:\d+ lru:\d+ lru_seconds_idle:\d+ "
                                  rb"ql_nodes:1 ql_avg_node:2.00 ql_listpack_max:-2 "
                                  rb"ql_compressed:0 ql_uncompressed_size:\d+$")
            self.assertIn(b"refcount:2147483647 encoding:int",
                          r.execute_command("DEBUG", "OBJECT", "n"))
            # RELOAD: every key serialized and rebuilt; the dataset digest does not move.
            before = r.execute_command("DEBUG", "DIGEST")
            r.hset("big", mapping={f"f{i}": i for i in range(300)})
            r.execute_command("CONFIG", "SET", "hash-max-listpack-entries", "1000")
            with_big = r.execute_command("DEBUG", "DIGEST")
            self.assertNotEqual(before, with_big)
            self.assertEqual(r.execute_command("DEBUG", "RELOAD"), b"OK")
            self.assertEqual(r.execute_command("DEBUG", "DIGEST"), with_big)
            self.assertEqual(r.object("encoding", "big"), b"listpack")  # thresholds re-applied
            self.assertEqual(r.pttl("t") > 0, True)
            # SET-ACTIVE-EXPIRE 0: an expired key stays until touched.
            r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
            r.set("e", "1", px=1)
            time.sleep(0.3)
            self.assertEqual(r.dbsize(), 9)
            self.assertIsNone(r.get("e"))
            self.assertEqual(r.dbsize(), 8)
            r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "1")
            help_lines = r.execute_command("DEBUG", "HELP")
            self.assertEqual(help_lines[0],
                             b"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
            self.assertEqual(help_lines[-2:], [b"HELP", b"    Prints this help."])
            r.close()


if __name__ == "__main__":
    unittest.main()
